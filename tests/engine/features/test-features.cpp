// Engine unit tests: feature transforms against TensorFlow's check vectors
// (hash buckets, bucketize, vocabulary lookups, crosses) and their errors.
#include <testthat.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {
using Ids = std::vector<std::vector<std::int64_t>>;

Spec keyed(const std::string& kind, const std::string& key) {
  Spec s = column(kind, key);
  s.strs["key"] = {key};
  return s;
}
Spec hash_column(const std::string& key, double size) {
  Spec s = keyed("hash_bucket", key);
  s.nums["hash_bucket_size"] = {size};
  return s;
}
Spec vocab_column(const std::string& key, std::vector<std::string> words, double oov = 0,
                  double dflt = -1) {
  Spec s = keyed("vocabulary_list", key);
  s.strs["vocabulary"] = std::move(words);
  s.nums["num_oov_buckets"] = {oov};
  s.nums["default_value"] = {dflt};
  return s;
}
Spec raw(const std::string& key) {
  Spec s = keyed("raw", key);
  return s;
}
Spec crossed(std::vector<Spec> keys, double size, double hash_key = -1) {
  Spec s = column("crossed", "cross");
  s.lists["keys"] = std::move(keys);
  s.nums["hash_bucket_size"] = {size};
  if (hash_key >= 0) s.nums["hash_key"] = {hash_key};
  return s;
}
Dataset one(ColumnView c) {
  Dataset d;
  d.n = c.n;
  d.features.push_back(std::move(c));
  return d;
}
}  // namespace

context("Hash bucket columns") {
  test_that("strings hash as TF's string_to_hash_bucket_fast: a b c d -> 9 2 2 5") {
    std::vector<std::string> x{"a", "b", "c", "d"};
    const Ids ids = ids_of(hash_column("x", 10), one(strings("x", x)));
    expect_true((ids == (Ids{{9}, {2}, {2}, {5}})));
  }
  test_that("integers hash through their decimal text; NA as \"NA\"; -1 and \"\" give no id") {
    std::vector<int> x{42, -12, kNaInteger, -1};
    const Ids ids = ids_of(hash_column("x", 10), one(ints("x", x)));
    // Fingerprint64("42") % 10 = 6, Fingerprint64("-12") % 10 = 9, Fingerprint64("NA") % 10 = 6
    expect_true((ids == (Ids{{6}, {9}, {6}, {}})));
    std::vector<std::string> s{"", "<NA>", "a"};
    expect_true((ids_of(hash_column("s", 10), one(strings("s", s))) == (Ids{{}, {6}, {9}})));
  }
  test_that("whole doubles are accepted, fractions refused with the row") {
    std::vector<double> x{42, 1.5};
    auto t = make_transform(hash_column("x", 10));
    Dataset d = one(doubles("x", x));
    expect_error_as(t->bind_ids(d), std::invalid_argument);
    try {
      t->bind_ids(d);
    } catch (const std::invalid_argument& e) {
      expect_true((std::string(e.what()).find("(row 2)") != std::string::npos));
    }
  }
  test_that("hash_bucket_size must be larger than 1") {
    expect_error_as(make_transform(hash_column("x", 1)), std::invalid_argument);
  }
}

context("Bucketized columns") {
  test_that("boundaries 0, 10, 100 map -5 10000 150 10 5 100 to 0 3 3 2 1 3") {
    std::vector<double> x{-5, 10000, 150, 10, 5, 100};
    Spec b = column("bucketized", "x_bucketized");
    b.lists["source_column"] = {numeric("x")};
    b.nums["boundaries"] = {0, 10, 100};
    expect_true((make_transform(b)->num_buckets() == 4));
    expect_true((ids_of(b, one(doubles("x", x))) == (Ids{{0}, {3}, {3}, {2}, {1}, {3}})));
  }
  test_that("value j of a multi-valued source is offset by j * (boundaries + 1)") {
    std::vector<double> x{-1, 5, 20, 0.5};  // column-major 2 x 2: rows (-1, 20), (5, 0.5)
    Spec b = column("bucketized", "x_bucketized");
    b.lists["source_column"] = {numeric("x", 2)};
    b.nums["boundaries"] = {0, 10};
    expect_true((make_transform(b)->num_buckets() == 6));
    expect_true((ids_of(b, one(doubles("x", x, 2))) == (Ids{{0, 5}, {1, 4}})));
  }
  test_that("unsorted boundaries are refused") {
    Spec b = column("bucketized", "x_bucketized");
    b.lists["source_column"] = {numeric("x")};
    b.nums["boundaries"] = {1, 1};
    expect_error_as(make_transform(b), std::invalid_argument);
  }
}

context("Vocabulary and identity columns") {
  test_that("ids are positions; out-of-vocabulary values get default_value, then are pruned") {
    std::vector<std::string> x{"b", "z", "a", "<NA>", ""};
    expect_true((ids_of(vocab_column("x", {"a", "b"}), one(strings("x", x))) ==
                 (Ids{{1}, {}, {0}, {}, {}})));
    // NA is out of the vocabulary too; "" is TF's missing value
    expect_true((ids_of(vocab_column("x", {"a", "b"}, 0, 1), one(strings("x", x))) ==
                 (Ids{{1}, {1}, {0}, {1}, {}})));
  }
  test_that("num_oov_buckets: V + Fingerprint64 mod k") {
    std::vector<std::string> x{"c", "d", "a"};
    // Fingerprint64("c") % 3 = 1, Fingerprint64("d") % 3 = 2; V = 2
    expect_true(
        (ids_of(vocab_column("x", {"a", "b"}, 3), one(strings("x", x))) == (Ids{{3}, {4}, {0}})));
    expect_true((make_transform(vocab_column("x", {"a", "b"}, 3))->num_buckets() == 5));
  }
  test_that("factors are looked up by their labels") {
    std::vector<int> codes{2, 1, kNaInteger, 3};
    ColumnView f = ints("x", codes);
    f.type = ColumnType::Factor;
    f.levels = {"b", "a", "zz"};
    expect_true((ids_of(vocab_column("x", {"a", "b"}), one(f)) == (Ids{{0}, {1}, {}, {}})));
  }
  test_that("a string vocabulary refuses numeric input, naming the feature") {
    std::vector<double> x{1, 2};
    auto t = make_transform(vocab_column("x", {"a"}));
    Dataset d = one(doubles("x", x));
    expect_error_as(t->bind_ids(d), std::invalid_argument);
  }
  test_that("identity: values are ids; NA and out of range take default_value or are an error") {
    std::vector<int> na{1, kNaInteger};
    Spec strict_na = keyed("identity", "x");
    strict_na.nums["num_buckets"] = {4};
    Dataset dna = one(ints("x", na));
    expect_error_as(make_transform(strict_na)->bind_ids(dna), std::invalid_argument);
    strict_na.nums["default_value"] = {2};
    expect_true((ids_of(strict_na, dna) == Ids{{1}, {2}}));
    std::vector<int> x{0, 3, 5, -1};
    Spec s = keyed("identity", "x");
    s.nums["num_buckets"] = {4};
    auto strict = make_transform(s);
    Dataset d = one(ints("x", x));
    expect_error_as(strict->bind_ids(d), std::invalid_argument);
    s.nums["default_value"] = {0};
    expect_true((ids_of(s, d) == (Ids{{0}, {3}, {0}, {}})));
  }
}

context("Crossed and weighted columns") {
  test_that("three string features cross as TF's sparse_cross_hashed (100 buckets -> 83)") {
    std::vector<std::string> a{"batch1-FC1-F1"}, b{"batch1-FC2-F1"}, c{"batch1-FC3-F1"};
    Dataset d;
    d.n = 1;
    d.features = {strings("a", a), strings("b", b), strings("c", c)};
    expect_true((ids_of(crossed({raw("a"), raw("b"), raw("c")}, 100), d) == (Ids{{83}})));
    // TF's test without buckets reports the hash mod (2^63 - 1): 1971693436396284976 for the
    // default key (so the hash is that + 2^63 - 1), 4847552627144134031 for key + 1. Seen
    // through 2^62 buckets:
    const double big = 4611686018427387904.0;
    expect_true(
        (ids_of(crossed({raw("a"), raw("b"), raw("c")}, big), d) == (Ids{{1971693436396284975}})));
    expect_true((ids_of(crossed({raw("a"), raw("b"), raw("c")}, big, 956888297471.0), d) ==
                 (Ids{{235866608716746127}})));  // 4847552627144134031 mod 2^62
  }
  test_that("categorical inputs are hashed first (their ids), then raw features") {
    std::vector<std::string> v{"b"}, r{"a"};
    Dataset d;
    d.n = 1;
    d.features = {strings("v", v), strings("r", r)};
    // FingerprintCat64(FingerprintCat64(0xDECAFCAFFE, 1), Fingerprint64("a")) % 1000 = 445
    expect_true(
        (ids_of(crossed({raw("r"), vocab_column("v", {"a", "b"})}, 1000), d) == (Ids{{445}})));
  }
  test_that("hash-bucket inputs are refused") {
    expect_error_as(make_transform(crossed({raw("r"), hash_column("v", 10)}, 1000)),
                    std::invalid_argument);
  }
  test_that("weighted: each id takes the row's weight; weights <= 0 are pruned") {
    std::vector<std::string> x{"a", "b", "a"};
    std::vector<double> w{2.5, 0, -1};
    Dataset d;
    d.n = 3;
    d.features = {strings("x", x), doubles("w", w)};
    Spec s = column("weighted", "x_weighted_by_w");
    s.lists["categorical_column"] = {vocab_column("x", {"a", "b"})};
    s.strs["weight_feature_key"] = {"w"};
    auto t = make_transform(s);
    auto bound = t->bind_ids(d);
    SparseIds ids;
    ids.reserve(3, bound->max_ids_per_row());
    int rows[3] = {0, 1, 2};
    bound->gather(rows, 3, ids);
    ids.prune();
    expect_true((ids.nnz() == 1));
    expect_true((ids.id(0) == 0 && ids.weight(0) == 2.5f));
    expect_true((ids.end(1) == ids.begin(1) && ids.end(2) == ids.begin(2)));
  }
}

context("Feature sets") {
  test_that("columns are sorted by name; dense ones share the block, others get slots") {
    std::vector<double> b{1, 2}, a{3, 4};
    std::vector<std::string> c{"x", "y"};
    Dataset d;
    d.n = 2;
    d.features = {doubles("b", b), doubles("a", a), strings("c", c)};
    FeatureSet fs({numeric("b"), vocab_column("c", {"y"}), numeric("a")});
    expect_true(
        (fs.column(0).name() == "a" && fs.column(1).name() == "b" && fs.column(2).name() == "c"));
    expect_true((fs.dense_width() == 2 && fs.sparse_count() == 1));
    auto binding = fs.bind(d);
    FeatureBatch batch;
    fs.allocate(*binding, 2, batch);
    int rows[2] = {1, 0};
    fs.gather(*binding, rows, 2, batch);
    expect_true((batch.dense == std::vector<float>{4, 2, 3, 1}));
    expect_true((batch.sparse[0].nnz() == 1 && batch.sparse[0].id(0) == 0 &&
                 batch.sparse[0].begin(0) == 0));
  }
  test_that("dense input layers refuse raw categorical columns, naming the wrappers") {
    Spec b = column("bucketized", "x_bucketized");
    b.lists["source_column"] = {numeric("x")};
    b.nums["boundaries"] = {0};
    Spec ind = column("indicator", "v_indicator");
    ind.lists["categorical_column"] = {vocab_column("v", {"a"})};
    FeatureSet ok({numeric("a"), b, ind});
    ok.require_dense("dnn_classifier()");
    FeatureSet raw_cat({numeric("a"), vocab_column("v", {"a"})});
    bool named = false;
    try {
      raw_cat.require_dense("dnn_classifier()");
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      named = m.find("column_embedding() or column_indicator()") != std::string::npos &&
              m.find("'v'") != std::string::npos;
    }
    expect_true(named);
  }
  test_that("duplicate names, empty lists and factors in numeric columns are refused") {
    expect_error_as(FeatureSet({numeric("a"), numeric("a")}), std::invalid_argument);
    expect_error_as(FeatureSet(std::vector<Spec>{}), std::invalid_argument);
    std::vector<int> codes{1, 2};
    ColumnView f = ints("a", codes);
    f.type = ColumnType::Factor;
    f.levels = {"u", "v"};
    FeatureSet fs({numeric("a")});
    Dataset d = one(f);
    expect_error_as(fs.bind(d), std::invalid_argument);
  }
}

context("Dataset lookup and numeric checks") {
  test_that("find() sees columns added or replaced after a first lookup") {
    std::vector<double> a{1, 2}, b{3, 4}, c{5, 6};
    Dataset d;
    d.n = 2;
    d.features = {doubles("a", a), doubles("b", b)};
    expect_true(d.find("b") == &d.features[1]);
    expect_true(d.find("c") == nullptr);
    d.features.push_back(doubles("c", c));
    expect_true((d.find("c") != nullptr && d.find("c")->doubles == c.data()));
    d.features = {doubles("c", c), doubles("a", a), doubles("b", b)};  // same size, new order
    expect_true((d.find("a") == &d.features[1] && d.find("c") == &d.features[0]));
  }
  test_that("a numeric column scans its values unless the caller checked them; its width always") {
    std::vector<double> x{1, NAN, 3}, wide{1, 2, 3, 4, 5, 6};
    FeatureSet fs({numeric("x")});
    Dataset d;
    d.n = 3;
    d.features = {doubles("x", x)};
    expect_true(contains(error_of([&] { fs.bind(d); }),
                         "feature 'x' contains missing values (NA), first at row 2: impute them"));
    x[1] = 1e39;
    expect_true(contains(error_of([&] { fs.bind(d); }), "beyond the float32 range"));
    x[1] = -INFINITY;
    expect_true(contains(error_of([&] { fs.bind(d); }), "infinite values (-Inf), first at row 2"));
    d.features[0].checked = true;
    expect_true(error_of([&] { fs.bind(d); }).empty());
    Dataset w;
    w.n = 3;
    w.features = {doubles("x", wide, 2)};
    w.features[0].checked = true;
    expect_true(contains(error_of([&] { fs.bind(w); }), "has 2 value(s) per row"));
  }
}
