// table_text: the cell helpers the score, compare and summarize writers share.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mlperf/report/table_text.h"

namespace mlperf {
namespace {

TEST(TableText, JsonNumberIsNullWhenAbsentOrNotFinite) {
  EXPECT_EQ(json_number_or_null(10.18474574915825).dump(), "10.18474574915825");
  EXPECT_TRUE(json_number_or_null(std::nullopt).is_null());
  EXPECT_TRUE(json_number_or_null(std::numeric_limits<double>::quiet_NaN()).is_null());
  EXPECT_TRUE(json_number_or_null(std::numeric_limits<double>::infinity()).is_null());
}

TEST(TableText, JsonStringIsNullWhenEmpty) {
  EXPECT_EQ(json_string_or_null("MI355X").dump(), "\"MI355X\"");
  EXPECT_TRUE(json_string_or_null("").is_null());
}

TEST(TableText, MarkdownCellEscapesPipesAndFlattensNewlines) {
  EXPECT_EQ(markdown_cell("a|b\nc"), "a\\|b c");
  EXPECT_EQ(markdown_cell("llama2_70b_lora"), "llama2_70b_lora");
}

TEST(CsvField, PlainValuesAreUnchanged) {
  EXPECT_EQ(csv_field("abc"), "abc");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("10.18474574915825"), "10.18474574915825");
  EXPECT_EQ(csv_field("a b;c|d"), "a b;c|d");
}

TEST(CsvField, QuotesPerRfc4180) {
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("line1\nline2"), "\"line1\nline2\"");
  EXPECT_EQ(csv_field("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(csv_field("\""), "\"\"\"\"");
}

TEST(TableText, WidthCountsCharactersNotBytes) {
  EXPECT_EQ(display_width("MI355X"), 6u);
  EXPECT_EQ(display_width("×2.75"), 5u);  // × is two bytes in UTF-8
  EXPECT_EQ(pad("×2", 4, true), "  ×2");
  EXPECT_EQ(pad("ab", 4, false), "ab  ");
  EXPECT_EQ(pad("abcdef", 4, false), "abcdef");  // never cut
}


// Names from the file system and logs reach the terminal as `ls -b` shows them: a newline or
// an escape sequence in a folder name can neither forge a line nor drive the terminal.
TEST(TableText, TerminalTextEscapesControlsAndBytesThatAreNotUtf8) {
  EXPECT_EQ(terminal_text("AMD / MI355X"), "AMD / MI355X");
  EXPECT_EQ(terminal_text("Ä MI355X é"), "Ä MI355X é");  // printable UTF-8 kept
  EXPECT_EQ(terminal_text("x\nscore 999.00 minutes PASSED"), "x\\nscore 999.00 minutes PASSED");
  EXPECT_EQ(terminal_text("\x1b[2J\x1b[31mred"), "\\033[2J\\033[31mred");
  EXPECT_EQ(terminal_text(std::string("a\0b", 3)), "a\\000b");
  EXPECT_EQ(terminal_text("tab\there\r"), "tab\\there\\r");
  EXPECT_EQ(terminal_text("back\\slash"), "back\\slash");  // kept: messages quote JSON escapes
  EXPECT_EQ(terminal_text("bad \xff byte"), "bad \\377 byte");
  EXPECT_EQ(terminal_text("\xc2\x9b" "C1"), "\\302\\233C1");  // a C1 control (CSI)
  EXPECT_EQ(terminal_text("\x7f"), "\\177");
  EXPECT_EQ(terminal_text("\xc2" "A"), "\\302A");  // a lone lead byte; the letter after it stays
}

TEST(TableText, MarkdownCellsNeverBecomeMarkup) {
  EXPECT_EQ(markdown_cell("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
  EXPECT_EQ(markdown_cell("a|b\nc & d"), "a\\|b c &amp; d");
}

}  // namespace
}  // namespace mlperf
