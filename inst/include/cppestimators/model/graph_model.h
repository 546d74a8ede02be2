// A custom estimator's model (kind "graph"): the graphs its model_fn built
// (graph/graph.h), one per mode, over one set of named variables. The model
// runs the part of the graph that reads the features and writes the
// frontier as its logits; GraphHead runs the part that reads the labels
// (the loss, the metrics) and returns the loss's gradient with respect to
// the frontier, which GraphModel::backward() carries to the variables.
//
// The model spec: "feature_columns" (every column an input layer of a graph
// reads), "variables" (Specs of kind = initializer: zeros, ones, constant,
// glorot_uniform, truncated_normal, random_normal, random_uniform; strs
// name, nums shape, value/limit/mean/stddev/minval/maxval, trainable) and
// "graphs" (graph Specs, at most one per mode; install() adds or replaces
// one later). A session binds the graph of its mode (bind_mode()).
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/graph_exec.h"
#include "heads/head.h"
#include "layers/input_layer.h"
#include "model.h"

namespace cppestimators {

class GraphHead;

class GraphModel : public Model {
 public:
  GraphModel(const Spec& spec, int units);
  ~GraphModel() override;

  std::string kind() const override;
  std::vector<std::string> groups() const override;
  std::unique_ptr<Workspace> new_workspace(const FeatureBatch& batch, int max_rows,
                                           int threads) const override;
  void forward(const FeatureBatch& batch, Mode mode, Workspace& ws, float* logits) const override;
  const std::vector<Gradient>& backward(const FeatureBatch& batch, const float* dlogits,
                                        Workspace& ws) override;
  void bind_mode(Mode mode) override;

  // Adds or replaces the graph of the spec's mode; its variables must be
  // the model's (by name and shape).
  void install(const Spec& graph_spec);
  bool has_graph(Mode mode) const { return graphs_[index(mode)] != nullptr; }
  const graph::Graph& graph_of(Mode mode) const;
  // The graph of the mode the last session bound.
  const graph::Graph& bound() const;
  bool computes_in_double() const { return double_; }

  // The head that runs this model's label part (owned by the estimator).
  std::unique_ptr<Head> make_head();

 private:
  static int index(Mode m) { return static_cast<int>(m); }
  template <class T>
  struct Work;
  template <class T>
  void forward_t(const FeatureBatch& batch, Work<T>& ws, float* logits) const;
  template <class T>
  const std::vector<Gradient>& backward_t(const FeatureBatch& batch, const float* dlogits,
                                          Work<T>& ws);
  template <class T>
  void fill_input_t(const graph::Node& n, const FeatureBatch& batch, T* x,
                    std::vector<float>& scratch, InputLayer::Scratch& input) const;

  InputLayer input_;  // the columns of the spec, in its order
  std::vector<Parameter*> vars_;
  std::vector<std::string> var_names_;
  std::array<std::unique_ptr<graph::Graph>, 3> graphs_;
  int bound_ = 0;
  bool double_ = false;
};

}  // namespace cppestimators
