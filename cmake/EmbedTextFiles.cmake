# mlh_embed_text_files(TARGET lib HEADER path/in/source.h FUNCTION name GLOB pattern...)
# Builds static library `lib` whose one function, declared in HEADER, returns every file matching the
# GLOB patterns (relative to the calling folder) by name: its path below that folder without the
# extension. The files are compiled in, so the binary works from any folder; editing one rebuilds.
function(mlh_embed_text_files)
  cmake_parse_arguments(ARG "" "TARGET;HEADER;FUNCTION" "GLOB" ${ARGN})
  set(patterns "")
  foreach(pattern IN LISTS ARG_GLOB)
    list(APPEND patterns ${CMAKE_CURRENT_SOURCE_DIR}/${pattern})
  endforeach()
  file(GLOB files CONFIGURE_DEPENDS ${patterns})
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${ARG_FUNCTION}.cpp)
  set(script ${PROJECT_SOURCE_DIR}/cmake/embed_text_files.cmake)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DHEADER=${ARG_HEADER} -DFUNCTION=${ARG_FUNCTION}
            -DBASE=${CMAKE_CURRENT_SOURCE_DIR} -DINPUTS="${files}" -P ${script}
    DEPENDS ${files} ${script}
    COMMENT "Embedding ${ARG_GLOB} of ${CMAKE_CURRENT_SOURCE_DIR}")
  add_library(${ARG_TARGET} STATIC ${output})
  target_include_directories(${ARG_TARGET} PUBLIC ${PROJECT_SOURCE_DIR})
endfunction()
