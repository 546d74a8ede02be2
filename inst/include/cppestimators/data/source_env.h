// What building a streaming dataset's source needs from the host: the parts
// of a source's description that a Spec does not carry (a CSV record spec's
// typed defaults, a TFRecord parse spec) and the sources whose rows come
// from the host itself. The R glue supplies an environment that reads them
// from R's description of the dataset (src/glue_stream.cpp).
#pragma once
#include <memory>
#include <vector>

namespace cppestimators {

class CsvReader;
class RowStream;
struct FeatureSpec;
struct Spec;

class SourceEnv {
 public:
  virtual ~SourceEnv() = default;
  // The reader of a "csv" source's files, as its record spec describes.
  virtual std::unique_ptr<CsvReader> csv_reader(const Spec& source) = 0;
  // The parse spec of a "tfrecord" source's records.
  virtual std::vector<FeatureSpec> example_features(const Spec& source) = 0;
  // The rows of a source the host reads itself (kind "r": R functions, as
  // sql_dataset() builds them).
  virtual std::unique_ptr<RowStream> host_source(const Spec& source) = 0;
};

}  // namespace cppestimators
