// TF's wide & deep model (dnn_linear_combined_*): a linear part on its
// columns and a DNN part on its own, logits summed. Each part is a model of
// its own over the same (union) feature columns, using only its columns;
// each has its own parameter group, so its own optimizer updates it from the
// gradients of the one loss, and the global step goes up once.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../features/feature_batch.h"
#include "../spec.h"
#include "dnn_model.h"
#include "linear_model.h"
#include "mode.h"
#include "model.h"
#include "parameter.h"

namespace cppestimators {

class CombinedModel : public Model {
 public:
  CombinedModel(const Spec& spec, int units);

  std::string kind() const override;
  std::vector<std::string> groups() const override;
  bool reads_dense_rows_by_index() const override;
  std::vector<Parameter*> parameters() override;

  std::unique_ptr<Workspace> new_workspace(const FeatureBatch& batch, int max_rows,
                                           int threads) const override;

  void forward(const FeatureBatch& batch, Mode mode, Workspace& base, float* logits) const override;

  const std::vector<Gradient>& backward(const FeatureBatch& batch, const float* dlogits,
                                        Workspace& base) override;

  // Integrated gradients of the whole model (with a DNN part): the DNN
  // part's over its input layer, and the linear part's exactly (a linear
  // function's integrated gradients are its terms minus their baseline
  // values). The explained input row is the DNN's input-layer row, then
  // the linear part's terms (explain(): per logit, each column's term and
  // the bias), so that their mean over reference rows is the baseline.
  int explained_input_width() const override;
  bool input_rows(const FeatureBatch& batch, float* x) const override;
  bool integrated_gradients(const FeatureBatch& batch, const float* baseline, int steps,
                            int threads, double* out) const override;

 private:
  struct Work : Workspace {
    std::unique_ptr<Workspace> linear, dnn;
    std::vector<float> logits;
    std::vector<Gradient> grads;
    bool seeded = false;
  };
  // The part of kind `kind` on the columns named in "<kind>_columns" (none
  // when the spec has no such list), with the next parameter group.
  template <class T>
  std::unique_ptr<T> part(const Spec& spec, const std::string& kind);
  std::vector<Model*> parts() const;

  std::unique_ptr<LinearModel> linear_;
  std::unique_ptr<DnnModel> dnn_;
  std::vector<std::string> groups_;
};

}  // namespace cppestimators
