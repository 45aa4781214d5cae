// Linked into every executable of a -DMLH_SANITIZE=ON build: the sanitizers' default options, read by
// their runtimes before main, so tests, their discovery at build time (gtest_discover_tests runs each
// binary), the fuzz targets and mlharness itself all run with the same settings and the suppressions
// in cmake/sanitizer_suppressions/. ASAN_OPTIONS, LSAN_OPTIONS and UBSAN_OPTIONS in the environment
// still add to or override them.

extern "C" const char* __asan_default_options() {
  return "detect_leaks=1:strict_string_checks=1:check_initialization_order=1:"
         "detect_stack_use_after_return=1:suppressions=" MLH_SANITIZER_SUPPRESSIONS "/asan.supp";
}

extern "C" const char* __lsan_default_options() {
  return "suppressions=" MLH_SANITIZER_SUPPRESSIONS "/lsan.supp:print_suppressions=0";
}

extern "C" const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1:suppressions=" MLH_SANITIZER_SUPPRESSIONS "/ubsan.supp";
}

// OpenMPI unloads its MCA components (dlclose) in MPI_Finalize, before LeakSanitizer reports at exit,
// so what they allocated shows as "<unknown module>" and no suppression can name it. Sanitizer builds
// keep every shared object loaded to the end; this definition in the executable takes the place of
// libc's for every library.
extern "C" int dlclose(void*) { return 0; }
