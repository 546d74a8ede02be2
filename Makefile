# The two quick-start commands:
#   make demo  - installs what is missing, installs the package, runs the seed examples
#   make test  - installs what is missing (the tidymodels packages too), then R CMD build + R CMD check (all tests)
#   make lint  - installs lintr if missing, then lints the package (.lintr); fails on any lint
#   make test-engine - the engine's C++ tests alone, built by CMake without R's headers
.PHONY: deps deps-test demo test test-engine layers lint format format-check install document bench bench-peer clean

# where `make test-engine` configures and builds (default: a temporary directory, removed after)
ENGINE_BUILD ?=

deps:
	bash .ci/deps.sh

# what make test needs beyond make demo: the tidymodels packages
deps-test:
	bash .ci/deps.sh test

install: deps
	MAKEFLAGS=-j2 _R_SHLIB_STRIP_=true R_STRIP_SHARED_LIB="strip --strip-debug --discard-all" R CMD INSTALL --preclean --no-test-load . >install.log 2>&1 || (tail -50 install.log; exit 1)

demo: install
	Rscript inst/examples/seeds.R

test: deps-test format-check layers test-engine
	bash .ci/check.sh

lint: layers
	bash .ci/deps.sh lint
	Rscript -e 'lints <- lintr::lint_package(); print(lints); quit(status = if (length(lints)) 1L else 0L)'

# The engine's folders include each other in no cycle (tools/check_layers.R).
layers:
	Rscript tools/check_layers.R

test-engine: deps
	@dir="$(ENGINE_BUILD)"; tmp=""; \
	if [ -z "$$dir" ]; then tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/cppestimators-engine.XXXXXX"); dir="$$tmp"; fi; \
	echo "engine tests: building in $$dir"; \
	cmake -S tools/engine -B "$$dir" && cmake --build "$$dir" -j2 && ctest --test-dir "$$dir" --output-on-failure; \
	rc=$$?; [ -z "$$tmp" ] || rm -rf "$$tmp"; exit $$rc

# Regenerates RcppExports, NAMESPACE and man/ (needs roxygen2 and pkgbuild);
# the generated C++ is formatted like the rest.
document:
	Rscript -e 'Rcpp::compileAttributes(".")' -e 'roxygen2::roxygenise(".")'
	clang-format -i src/RcppExports.cpp

# Every C++ file of the package and of the engine's test build.
CXX_SOURCES = $(shell find src inst/include tools tests/engine -name '*.h' -o -name '*.cpp' | sort)

# Applies .clang-format to every C++ file.
format:
	clang-format -i $(CXX_SOURCES)

# Fails when a C++ file differs from .clang-format (make format fixes it).
format-check: deps
	@echo "clang-format --dry-run -Werror: $(words $(CXX_SOURCES)) C++ files"
	@clang-format --dry-run -Werror $(CXX_SOURCES)

bench: install
	Rscript bench/run.R

# Installs the peers so that `make bench` adds their rows: PyTorch (Debian's
# python3-torch), and from CRAN the xgboost and LightGBM R packages and the
# nycflights13 data of the boosted trees bench.
bench-peer:
	bash ../shared/bench/peers/setup.sh
	Rscript bench/install_peers.R

clean:
	rm -rf check install.log src/*.so
	find src -name "*.o" -delete
