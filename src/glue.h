// Shared by the glue files: the boxes R's external pointers hold.
#pragma once
#include <Rcpp.h>

#include <memory>
#include <vector>

#include <cppestimators/data/dataset.h>
#include <cppestimators/data/stream_feed.h>
#include <cppestimators/features/dense_block.h>
#include <cppestimators/model/estimator.h>
#include <cppestimators/session/session.h>

namespace cppestimators {

// Everything a running session needs, kept alive together: the R data it
// reads in place, the views, the estimator and the session itself.
struct SessionBox {
  Rcpp::RObject estimator_ptr;  // keeps the Estimator alive
  Rcpp::List keep;              // the R vectors the Dataset points into
  Dataset data;
  // a streaming input: the R objects its source calls, and the feed (both
  // outlive the session, which reads the feed's windows)
  std::vector<Rcpp::RObject> host;
  std::unique_ptr<StreamFeed> feed;
  Rcpp::RObject collective;  // a distributed session's ranks (outlive the session)
  std::unique_ptr<Session> session;
  bool running = false;
};

// A cached dense feature block (shared with the sessions that read it).
struct BlockBox {
  std::shared_ptr<const DenseBlock> block;
};

inline const BlockBox& block_of(SEXP xp) {
  Rcpp::XPtr<BlockBox> p(xp);
  if (p.get() == nullptr || !p->block) Rcpp::stop("internal: the feature block is gone");
  return *p;
}

inline Estimator& estimator_of(SEXP xp) {
  Rcpp::XPtr<Estimator> p(xp);
  if (p.get() == nullptr) Rcpp::stop("the estimator's engine state is gone; rebuild the estimator");
  return *p;
}

inline SessionBox& box_of(SEXP xp) {
  Rcpp::XPtr<SessionBox> p(xp);
  if (p.get() == nullptr || !p->session) Rcpp::stop("this session is closed");
  return *p;
}

}  // namespace cppestimators
