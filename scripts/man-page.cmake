# Writes the man page mlperf-score(1), gzip'd, from the built binary's own help: help2man turns
# `mlperf-score --help` and `--version` into the page, and each subcommand's `--help` becomes a
# subsection of COMMANDS, so the page never says anything the binary does not.
# CMakeLists.txt runs it at build time (target man) when help2man is installed:
#   cmake -DBINARY=build/mlperf-score -DHELP2MAN=/usr/bin/help2man -DGZIP=/usr/bin/gzip \
#         -DOUTPUT=build/man/mlperf-score.1.gz -P scripts/man-page.cmake
foreach(var BINARY HELP2MAN GZIP OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "man-page.cmake: -D${var}=... is required")
  endif()
endforeach()

# Text as roff, shown as is: backslashes escaped, a line that starts with . or ' made literal.
function(roff_literal text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${BINARY} --help OUTPUT_VARIABLE top RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${BINARY} --help failed (${status})")
endif()
# The subcommands are the lines "  NAME   description" under "Subcommands:" in the top help.
string(REGEX REPLACE ".*\nSubcommands:\n" "" listing "${top}")
string(REGEX MATCHALL "(^|\n)  [a-z][a-z0-9_-]*" names "${listing}")
if(NOT names)
  message(FATAL_ERROR "${BINARY} --help lists no subcommands")
endif()

set(include "[COMMANDS]\n")
foreach(name IN LISTS names)
  string(STRIP "${name}" name)
  execute_process(COMMAND ${BINARY} ${name} --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${BINARY} ${name} --help failed (${status})")
  endif()
  # CLI11 writes the path it was started with; the page shows the command's name.
  string(REPLACE "${BINARY}" "mlperf-score" help "${help}")
  roff_literal("${help}" help)
  string(APPEND include ".SS \"mlperf-score ${name}\"\n.nf\n${help}.fi\n")
endforeach()
string(APPEND include "[ENVIRONMENT]
.TP
.B MLPERF_SCORE_DATA_DIR
The folder holding configs/ and data/rcps/, when --data-dir is not given.
.TP
.B MLPERF_SCORE_HIP_LIBRARY
The HIP runtime that probe and --probe load (default: the first of libamdhip64.so,
libamdhip64.so.7, .6, .5 and /opt/rocm/lib/libamdhip64.so that opens).
[FILES]
.TP
.I /usr/share/mlperf-score/
The data the tool reads (configs/, data/rcps/), found as ../share/mlperf-score beside the binary.
.TP
.I /usr/share/mlperf-score/examples/
AMD's example training and inference results: try mlperf-score score /usr/share/mlperf-score/examples
")

get_filename_component(out_dir "${OUTPUT}" DIRECTORY)
string(REGEX REPLACE "\\.gz$" "" page "${OUTPUT}")
file(WRITE "${out_dir}/mlperf-score.h2m" "${include}")
execute_process(
  COMMAND ${HELP2MAN} --no-info --section=1 "--name=score MLPerf Training and Inference result logs"
          --include=${out_dir}/mlperf-score.h2m --output=${page} ${BINARY}
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "help2man failed (${status})")
endif()
# -n: no name or time stamp in the header, so the same page gives the same bytes.
execute_process(COMMAND ${GZIP} -9nf ${page} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "gzip ${page} failed (${status})")
endif()
