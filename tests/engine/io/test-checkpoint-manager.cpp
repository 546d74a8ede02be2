// Engine unit tests: the checkpoint index (io/checkpoint_index.h) and
// rotation by the CheckpointManager (io/checkpoint_manager.h).
#include <testthat.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <cppestimators/io/checkpoint.h>

#include "test-helpers.h"

namespace fs = std::filesystem;
using cppestimators::CheckpointData;
using cppestimators::CheckpointManager;
using cppestimators::CheckpointState;
using cppestimators::TensorRecord;
using namespace cppestimators::testing;

context("Checkpoint index and manager") {
  test_that("rotation keeps the newest max_to_keep checkpoints and writes the index") {
    TempDir dir;
    CheckpointManager m(dir.str(), "model.ckpt", 3);
    for (int step = 1; step <= 6; ++step) {
      const std::string written = m.save(step_checkpoint(step));
      expect_true(written == CheckpointManager::file_for_prefix(
                                 dir.str(), "model.ckpt-" + std::to_string(step)));
      expect_true(!has_temp_files(dir.path));
    }
    const std::vector<std::string> files = {"checkpoint", "model.ckpt-4.ckpt", "model.ckpt-5.ckpt",
                                            "model.ckpt-6.ckpt"};
    expect_true(listing(dir.path) == files);

    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    expect_true(st.model_checkpoint_path == "model.ckpt-6");
    const std::vector<std::string> kept = {"model.ckpt-4", "model.ckpt-5", "model.ckpt-6"};
    expect_true(st.all_model_checkpoint_paths == kept);

    expect_true(slurp(dir / "checkpoint") ==
                "model_checkpoint_path: \"model.ckpt-6\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-4\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-5\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-6\"\n");

    const std::string latest = dir / "model.ckpt-6.ckpt";
    expect_true(m.latest() == latest);
    expect_true(cppestimators::latest_checkpoint(dir.str()) == latest);
    expect_true(cppestimators::read_checkpoint_file(latest).global_step == 6);
  }

  test_that("max_to_keep = 0 keeps every checkpoint") {
    TempDir dir;
    CheckpointManager m(dir.str(), "model.ckpt", 0);
    for (int step = 1; step <= 6; ++step) m.save(step_checkpoint(step));
    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    expect_true(st.all_model_checkpoint_paths.size() == 6u);
    expect_true(st.all_model_checkpoint_paths.front() == "model.ckpt-1");
    expect_true(listing(dir.path).size() == 7u);  // 6 checkpoints and the index
    expect_true(!has_temp_files(dir.path));
  }

  test_that("re-saving a step does not duplicate it and moves it to the end") {
    TempDir dir;
    CheckpointManager m(dir.str(), "model.ckpt", 3);
    for (int step : {1, 2, 3, 2}) m.save(step_checkpoint(step));
    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    const std::vector<std::string> kept = {"model.ckpt-1", "model.ckpt-3", "model.ckpt-2"};
    expect_true(st.all_model_checkpoint_paths == kept);
    expect_true(st.model_checkpoint_path == "model.ckpt-2");
    expect_true(listing(dir.path).size() == 4u);
    m.save(step_checkpoint(2));
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    expect_true(st.all_model_checkpoint_paths == kept);
  }

  test_that("a new manager continues the list of an existing index") {
    TempDir dir;
    {
      CheckpointManager first(dir.str(), "model.ckpt", 3);
      first.save(step_checkpoint(1));
      first.save(step_checkpoint(2));
    }
    CheckpointManager second(dir.str(), "model.ckpt", 3);
    expect_true(second.latest() == dir / "model.ckpt-2.ckpt");
    second.save(step_checkpoint(3));
    second.save(step_checkpoint(4));
    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    const std::vector<std::string> kept = {"model.ckpt-2", "model.ckpt-3", "model.ckpt-4"};
    expect_true(st.all_model_checkpoint_paths == kept);
    expect_true(!fs::exists(dir / "model.ckpt-1.ckpt"));
  }

  test_that("latest_checkpoint is empty without an index and falls back to existing files") {
    TempDir dir;
    expect_true(cppestimators::latest_checkpoint(dir.str()) == "");
    expect_true(cppestimators::latest_checkpoint(dir / "does-not-exist") == "");
    CheckpointManager fresh(dir / "created", "model.ckpt", 2);
    expect_true(fs::is_directory(dir / "created"));
    expect_true(fresh.latest() == "");

    CheckpointManager m(dir.str(), "model.ckpt", 0);
    for (int step = 1; step <= 3; ++step) m.save(step_checkpoint(step));
    fs::remove(dir / "model.ckpt-3.ckpt");
    expect_true(m.latest() == dir / "model.ckpt-2.ckpt");
    fs::remove(dir / "model.ckpt-2.ckpt");
    fs::remove(dir / "model.ckpt-1.ckpt");
    expect_true(m.latest() == "");
  }

  test_that("hand-written indexes with extra whitespace, comments and TF fields are read") {
    TempDir dir;
    spit(dir / "checkpoint",
         "# written by hand\r\n"
         "  model_checkpoint_path :   \"model.ckpt-20\"  \r\n"
         "\n"
         "all_model_checkpoint_paths:'model.ckpt-10'\n"
         "\tall_model_checkpoint_paths: \"model.ckpt-\" \"20\"\n"
         "all_model_checkpoint_timestamps: 1.5e9\n"
         "last_preserved_timestamp: 1690000000.25\n");
    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    expect_true(st.model_checkpoint_path == "model.ckpt-20");
    const std::vector<std::string> all = {"model.ckpt-10", "model.ckpt-20"};
    expect_true(st.all_model_checkpoint_paths == all);

    // A manager continues it; the hand-written file is rewritten canonically.
    CheckpointManager m(dir.str(), "model.ckpt", 2);
    m.save(step_checkpoint(30));
    expect_true(slurp(dir / "checkpoint") ==
                "model_checkpoint_path: \"model.ckpt-30\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-20\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-30\"\n");
  }

  test_that("malformed indexes throw naming the file; escapes round-trip") {
    TempDir dir;
    const std::string index = dir / "checkpoint";
    for (const char* text : {"model_checkpoint_path \"a\"\n", "model_checkpoint_path: a\n",
                             "model_checkpoint_path: \"a\n", "bogus_field: \"a\"\n",
                             "all_model_checkpoint_paths: \"a\"\n",
                             "model_checkpoint_path: \"a\"\nmodel_checkpoint_path: \"b\"\n"}) {
      spit(index, text);
      CheckpointState st;
      const std::string msg =
          error_of([&] { cppestimators::read_checkpoint_state(dir.str(), &st); });
      expect_true((contains(msg, index) && contains(msg, "malformed checkpoint index")));
    }

    CheckpointState odd;
    odd.model_checkpoint_path = "we\"ird\\name\nwith\ttabs \xc3\xa9 \x01";
    odd.all_model_checkpoint_paths = {"plain", odd.model_checkpoint_path};
    cppestimators::write_checkpoint_state(dir.str(), odd);
    CheckpointState back;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &back));
    expect_true(back.model_checkpoint_path == odd.model_checkpoint_path);
    expect_true(back.all_model_checkpoint_paths == odd.all_model_checkpoint_paths);
    expect_true(!has_temp_files(dir.path));
  }

  test_that("invalid manager arguments are rejected") {
    TempDir dir;
    expect_error_as(CheckpointManager(dir.str(), "model.ckpt", -1), std::invalid_argument);
    expect_error_as(CheckpointManager(dir.str(), ""), std::invalid_argument);
    spit(dir / "file", "x");
    expect_error_as(CheckpointManager(dir / "file"), std::runtime_error);
  }
}
