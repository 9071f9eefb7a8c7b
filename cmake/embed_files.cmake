# embed_files(VAR file... NAMESPACE ns [BASE dir]): generates a .cpp defining
#   const std::vector<std::pair<std::string_view, std::string_view>>& ns::files();
# with each file's path (relative to BASE) and contents, and sets VAR_SOURCE to it.
# The files are re-embedded whenever they change.
function(embed_files var)
  cmake_parse_arguments(EMBED "" "NAMESPACE;BASE" "" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${var}.cpp)
  set(inputs ${EMBED_UNPARSED_ARGUMENTS})
  string(REPLACE ";" "|" joined "${inputs}")  # a list cannot cross the command line as-is
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${EMBED_NAMESPACE} -DBASE=${EMBED_BASE}
            "-DINPUTS=${joined}" -P ${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake
    DEPENDS ${inputs} ${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake
    COMMENT "Embedding ${var}"
    VERBATIM)
  set(${var}_SOURCE ${out} PARENT_SCOPE)
endfunction()
