# Seeds the fuzz corpora from the repository (run at build time by the fuzz_corpus target):
#   segment, parse, ingest <- every fixture text (fixtures/formats, fixtures/incidents)
#   rules                  <- rules/**/*.toml
#   archive                <- the seed incident packed as tar.gz, tar.zst, tar.xz, tar.bz2, zip
#   every target           <- fuzz/corpus/<target>/*: what earlier campaigns found, minimised and
#                             committed (scripts/fuzz-campaign.sh --keep), so a smoke run starts
#                             where the last campaign ended. db's and rule_sql's seeds are all
#                             there (small timelines and scan databases, crafted ones; the
#                             diagnosis queries of rules/diagnoses, which CMake cannot cut out)
# Usage: cmake -DSOURCE_DIR=<repo> -DOUT=<dir> -P make_corpus.cmake
set(targets segment parse ingest rules archive db rule_sql)
file(REMOVE_RECURSE ${OUT})
foreach(target IN LISTS targets)
  file(MAKE_DIRECTORY ${OUT}/${target})
  file(GLOB kept ${SOURCE_DIR}/fuzz/corpus/${target}/*)
  foreach(file IN LISTS kept)
    get_filename_component(name ${file} NAME)
    configure_file(${file} ${OUT}/${target}/kept_${name} COPYONLY)
  endforeach()
endforeach()

# Files are named after their path (slashes as '_'), so names never collide.
function(seed_copy file target)
  file(RELATIVE_PATH rel ${SOURCE_DIR} ${file})
  string(REPLACE "/" "_" name "${rel}")
  configure_file(${file} ${OUT}/${target}/${name} COPYONLY)
endfunction()

file(GLOB_RECURSE fixture_files ${SOURCE_DIR}/fixtures/*)
foreach(file IN LISTS fixture_files)
  if(file MATCHES "(expected|\\.expect)\\.json$" OR file MATCHES "\\.(md|html)$")
    continue()
  endif()
  file(SIZE ${file} size)
  if(size GREATER 262144)
    continue()  # keep seeds small: the fuzzer mutates them thousands of times a second
  endif()
  foreach(target segment parse ingest)
    seed_copy(${file} ${target})
  endforeach()
endforeach()

file(GLOB_RECURSE rule_files ${SOURCE_DIR}/rules/*.toml)
foreach(file IN LISTS rule_files)
  seed_copy(${file} rules)
endforeach()

set(incident ${SOURCE_DIR}/fixtures/incidents/two-node-stale-embeddings/inputs)
foreach(pack "cfz;seed.tar.gz" "cf;seed.tar.zst;--zstd" "cfJ;seed.tar.xz" "cfj;seed.tar.bz2" "cf;seed.zip;--format=zip")
  list(GET pack 0 flags)
  list(GET pack 1 name)
  list(LENGTH pack n)
  set(extra "")
  if(n GREATER 2)
    list(GET pack 2 extra)
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E tar ${flags} ${OUT}/archive/${name} ${extra} spark-a spark-b
                  WORKING_DIRECTORY ${incident} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(WARNING "could not pack ${name} (${rc})")
  endif()
endforeach()

