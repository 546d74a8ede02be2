run_cpp_tests("cppestimators")
