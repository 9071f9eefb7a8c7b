// The Markdown-to-HTML converter used for the report text inside the HTML page: the subset
// render_markdown writes, with every character escaped.
#include <catch2/catch.hpp>

#include <string>

#include "report/markdown_html.hpp"

using culprit::report::markdown_to_html;

TEST_CASE("markdown_html: headings, paragraphs, lists, code spans and bold", "[report]") {
  CHECK(markdown_to_html("## Culprit\n") == "<h2>Culprit</h2>\n");
  CHECK(markdown_to_html("one\ntwo\n\nthree\n") == "<p>one two</p>\n<p>three</p>\n");
  CHECK(markdown_to_html("- **Host:** spark-b\n- `VLLM::EngineCore`\n") ==
        "<ul>\n<li><strong>Host:</strong> spark-b</li>\n<li><code>VLLM::EngineCore</code></li>\n</ul>\n");
  CHECK(markdown_to_html("a `` x`y `` b\n") == "<p>a <code>x`y</code> b</p>\n");
  CHECK(markdown_to_html("dist\\_init\\_addr \\<x\\> \\& 5 \\* 2\n") ==
        "<p>dist_init_addr &lt;x&gt; &amp; 5 * 2</p>\n");
  CHECK(markdown_to_html("unclosed **bold and `tick\n") == "<p>unclosed **bold and `tick</p>\n");
}

TEST_CASE("markdown_html: tables with escaped pipes and right-aligned columns", "[report]") {
  const std::string md =
      "| Entry | Bytes |\n"
      "|---|--:|\n"
      "| `a \\| b` | 1024 |\n"
      "| x\\|y | |\n";
  CHECK(markdown_to_html(md) ==
        "<table>\n<thead><tr><th>Entry</th><th class=\"num\">Bytes</th></tr></thead>\n<tbody>\n"
        "<tr><td><code>a | b</code></td><td class=\"num nw\">1024</td></tr>\n"
        "<tr><td class=\"nw\">x|y</td><td class=\"num\"></td></tr>\n"
        "</tbody>\n</table>\n");
}

TEST_CASE("markdown_html: fenced code keeps its lines and escapes them", "[report]") {
  const std::string md = "````text\n<script>alert(1)</script>\n```\nstill code\n````\nafter\n";
  CHECK(markdown_to_html(md) ==
        "<pre><code>&lt;script&gt;alert(1)&lt;/script&gt;\n```\nstill code\n</code></pre>\n<p>after</p>\n");
  // An unterminated fence runs to the end, still escaped.
  CHECK(markdown_to_html("```\n<b>\n") == "<pre><code>&lt;b&gt;\n</code></pre>\n");
}

TEST_CASE("markdown_html: raw HTML in the text is never passed through", "[report]") {
  const std::string out = markdown_to_html("<img src=x onerror=alert(1)> \"quoted\" 'single'\n");
  CHECK(out == "<p>&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot; &#39;single&#39;</p>\n");
}
