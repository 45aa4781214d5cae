# Read by ctest in a -DMLH_SANITIZE=ON build, after the discovered tests of tests/datasets are defined:
# disables the tests listed in sanitizer_excluded_tests.txt (the reason is there).
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/sanitizer_excluded_tests.txt" mlh_excluded REGEX "^[^#]")
set_tests_properties(${mlh_excluded} PROPERTIES DISABLED TRUE)
