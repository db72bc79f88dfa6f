"""Text from inputs and config, escaped for each place it is written to.

Kernel names, labels, series and preset text (``name``, ``source``) come from files rooflow
does not control. Each sink gets its own escaping, so that no text can become markup,
a link, a table cell break or a spreadsheet formula:

- :func:`markdown_cell`: a cell of a Markdown table (``summary.md``);
  :func:`markdown_text`: the same, a code span where the text holds ``<``, ``>``, ``&``;
- :func:`rst_text`: reStructuredText inline text (the Snakemake report's captions);
- :func:`report_param` / :func:`from_report_param`: a rule's ``params`` in the Snakemake
  report, which embeds them unescaped in a ``<script>`` block;
- :func:`neutralize_csv` / :func:`restore_csv`: CSV cells a spreadsheet would run as a
  formula (OWASP "CSV injection");
- :func:`terminal_text`: a line on a terminal or a CI log (no escape sequence, bell or
  line break from a name);
- :func:`xml_text`: XML 1.0 text or attribute values (JUnit), which cannot hold most
  control characters at all, not even as character references.

- :func:`terminal_text` / :func:`terminal_lines`: text printed on a terminal or in a log
  (error lines, the stderr summaries): no control sequence (ESC), NUL, BEL or bidi
  override reaches the terminal.

HTML pages escape their own text (:mod:`rooflow.html`).

Kernel names (C++ templates run to thousands of characters) are shortened the same way
on a plot and in a message: :func:`short_names`, :func:`short_name`.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

_MD_ALWAYS = re.compile(r"([\\`*\[\]|~])")
# `_` makes emphasis only at a word's edge (GFM): escaped there, so kernel_names stay readable.
_MD_EDGE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# Only what can start RST markup: inline markup and references (\ ` * _ | [ ]), standalone
# URIs and e-mail links (a `:` before a non-space, `@`), and `<`, `!`, and a `/` after `<`
# (no `</` or `<!` for a <script> block). Units such as TFLOP/s, commas, dots stay as they are.
_RST_MARKUP = re.compile(r"([\\`*_|\[\]@<>!]|:(?=\S)|(?<=<)/)")
# Cell starts that make a spreadsheet read the cell as a formula (OWASP): = + - @ tab CR;
# a quote already there is quoted again (reversible).
_NEUTRALIZE = r"^'*[=+\-@\t\r]"
_RESTORE = r"^'+[=+\-@\t\r]"


# C0 and C1 controls and DEL (Unicode category Cc), the line and paragraph separators,
# and the bidirectional embeddings, overrides and isolates ("Trojan Source", CVE-2021-42574).
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# Characters XML 1.0 forbids (https://www.w3.org/TR/xml/#charsets): C0 controls but tab,
# newline and carriage return; lone surrogates; U+FFFE, U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


NAME_MAX = 40
"""Characters of a shortened kernel name (a plot's label, a message)."""


def short_names(names: pl.Series, width: int = NAME_MAX, *, elide: bool = True) -> pl.Series:
    """Kernel names with template arguments ``<…>`` and parameter lists ``(…)`` elided.

    ``void gemm<float, 128>(float*, int)`` → ``void gemm<…>(…)``; still longer than
    ``width`` → cut in the middle with "…", keeping the head and the longer tail (where
    generated names differ: ``__omp_offloading_32_6b6b__QQmain_l123``). Distinct names
    that shorten to the same text each get a suffix ``#1``, ``#2``, … in first-seen order.
    Vectorized: innermost brackets are replaced first, as many passes as the deepest
    nesting (each pass is one polars string operation). ``elide`` False: no brackets
    elided, only the middle cut (run, dataset and series names: "v1.2 (base)").
    """
    import polars as pl

    s = names.cast(pl.String).fill_null("")
    if not (s.str.len_chars() > width).any() and not (
            elide and s.str.contains("[<(\x01\x02]").any()):
        return s.alias(names.name)  # nothing to elide or cut: each name is its own
    if elide:  # brackets to marks, innermost first; a mark in a name shown as its escape
        s = s.str.replace_all("\x01", "\\x01", literal=True).str.replace_all(
            "\x02", "\\x02", literal=True)
        for inner, mark in ((r"<[^<>]*>", "\x01"), (r"\([^()]*\)", "\x02")):
            while s.str.contains(inner).any():
                s = s.str.replace_all(inner, mark)
        s = s.str.replace_all("\x01", "<…>", literal=True).str.replace_all(
            "\x02", "(…)", literal=True)
    head = max((width - 1) * 2 // 5, 1)  # 2/5 head, 3/5 tail
    tail = max(width - 1 - head, 0)
    long = s.str.len_chars() > width
    short = pl.select(pl.when(long).then(s.str.slice(0, head) + "…" + s.str.slice(-tail, tail))
                      .otherwise(s).alias("short")).to_series()
    frame = pl.DataFrame({"name": names.cast(pl.String).fill_null(""), "short": short})
    # One number per distinct full name among those sharing a shortening.
    codes = frame.unique("name", maintain_order=True).with_columns(
        n=pl.col("name").n_unique().over("short"),
        i=pl.int_range(1, pl.len() + 1).over("short"))
    out = frame.join(codes.select("name", "n", "i"), on="name", how="left",
                     maintain_order="left").select(
        pl.when(pl.col("n") > 1).then(pl.format("{} #{}", "short", "i"))
        .otherwise("short").alias(names.name))
    return out.to_series()


def short_name(name: str, width: int = NAME_MAX) -> str:
    """One kernel name shortened as :func:`short_names` does, for a message or a note.

    ``void k<float, 128>(float*, int)`` → ``void k<…>(…)``; a name still over ``width``
    characters is cut in the middle: a 5,000-character template name stays one line.
    """
    import polars as pl

    return str(short_names(pl.Series([str(name)], dtype=pl.String), width)[0])


def _visible(match: re.Match[str]) -> str:
    r"""A control character as Python writes it in a string literal: ``\x1b``, ``\n``."""
    return ascii(match.group())[1:-1]


def terminal_text(text: object) -> str:
    r"""``text`` safe to print on a terminal or into a CI log, on one line.

    Every control character (ESC, NUL, BEL, CR, newline, tab, DEL, the C1 controls), the
    Unicode line and paragraph separators and the bidirectional controls are written as
    their Python escape (``\x1b``, ``\n``, ``\u202e``): no escape sequence runs, no
    line is forged, no text is reordered. Other text is unchanged.
    """
    return _CONTROLS.sub(_visible, str(text))


def xml_text(text: object) -> str:
    """``text`` that XML 1.0 can hold: forbidden characters as their Python escape.

    The XML writer (``xml.etree.ElementTree``) escapes ``&``, ``<``, ``>`` and quotes
    itself but writes a control character such as ESC or NUL as it is, which no parser
    accepts; control characters are also written visibly (:func:`terminal_text`), so a
    JUnit report shown on a terminal runs none.
    """
    return _NOT_XML.sub(_visible, terminal_text(text))


def one_line(text: object) -> str:
    """``text`` with every run of whitespace (newlines, tabs, line separators) one space."""
    return " ".join(str(text).split())


def markdown_cell(text: object) -> str:
    r"""``text`` as literal text in a Markdown (GFM) table cell.

    One line (a newline would end the table); other control characters (ESC, NUL, BEL)
    written as ``\xNN`` (:func:`terminal_text`: ``cat summary.md`` runs none); ``|``
    escaped (a cell break); HTML's ``&``, ``<``, ``>`` as entities (no tag or comment
    passes through); backslash, backtick, ``*``, ``[``, ``]``, ``~`` and ``_`` at a word's
    edge backslash-escaped (no code span, emphasis, link or strike-through).
    """
    text = html.escape(terminal_text(one_line(text)), quote=False)
    text = _MD_ALWAYS.sub(r"\\\1", text)
    return _MD_EDGE_UNDERSCORE.sub(r"\\_", text)


def markdown_text(text: object, *, in_table: bool = True) -> str:
    """``text`` in a Markdown (GFM) table cell, or a list item, shown as written.

    ``in_table`` False: a list item.

    Text holding ``<``, ``>`` or ``&`` (a C++ template such as ``gemm<float>``, HTML) is a
    code span, where GFM shows every character as it is and makes no tag, so the Markdown
    holds no ``&lt;``/``&gt;``/``&amp;`` entities for a reader of the file; its fence is
    one backtick longer than the longest run inside, and in a table ``|`` is escaped (GFM
    splits the cells first, even in a code span). Control characters are written as their
    Python escape in both (:func:`terminal_text`: ``cat summary.md`` runs none). Other
    text: :func:`markdown_cell`.
    """
    line = terminal_text(one_line(text))
    if not re.search(r"[<>&]", line):
        return markdown_cell(line)
    fence = "`" * (max((len(r) for r in re.findall(r"`+", line)), default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    inside = line.replace("|", "\\|") if in_table else line
    return f"{fence}{pad}{inside}{pad}{fence}"


def rst_text(text: object) -> str:
    r"""``text`` as literal reStructuredText inline text, on one line.

    The characters that can start markup are backslash-escaped, and only those (the report
    also shows the job params, where ``TFLOP\/s\,`` would be noise): no role, link,
    substitution, footnote or standalone URI (``javascript:...``) is recognised, and on one
    line no directive (``.. raw:: html``) can start. docutils then HTML-escapes the text itself.
    The result holds no ``</`` or ``<!``, so it is also safe in a ``<script>`` block.
    """
    return _RST_MARKUP.sub(r"\\\1", one_line(text))


def report_param(value: Any) -> Any:
    """``value`` (str, or lists/dicts of them) with ``&``, ``<``, ``>`` as HTML entities.

    The Snakemake report writes each job's params into a ``<script>`` block unescaped: a
    ``</script>`` in a title from the config would end the block and start markup. Rule
    scripts undo this with :func:`from_report_param`; the mapping is one to one, so a
    changed value still reruns the job.
    """
    if isinstance(value, str):
        return html.escape(value, quote=False)
    if isinstance(value, dict):
        return {k: report_param(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(report_param(v) for v in value)
    return value


def from_report_param(value: Any) -> Any:
    """The value :func:`report_param` was given."""
    if isinstance(value, str):
        return html.unescape(value)
    if isinstance(value, dict):
        return {k: from_report_param(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(from_report_param(v) for v in value)
    return value


def _text_columns(frame: pl.DataFrame) -> list[str]:
    import polars as pl

    return [name for name, dtype in frame.schema.items()
            if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum)]


def neutralize_csv(frame: pl.DataFrame) -> pl.DataFrame:
    """Text cells that a spreadsheet would run as a formula, prefixed with ``'`` (OWASP).

    A text cell starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return (after any
    ``'``) that is not a number (``-5``, ``+1e3`` stay as they are) gets one more leading
    ``'``; :func:`restore_csv` takes it off again. Numeric columns are never changed.
    """
    import polars as pl

    exprs = []
    for name in _text_columns(frame):
        text = pl.col(name).cast(pl.String)
        risky = text.str.contains(_NEUTRALIZE) & text.str.strip_chars().cast(
            pl.Float64, strict=False).is_null()
        exprs.append(pl.when(risky).then(pl.lit("'") + text).otherwise(text).alias(name))
    return frame.with_columns(exprs) if exprs else frame


def restore_csv(frame: pl.DataFrame) -> pl.DataFrame:
    """Undo :func:`neutralize_csv` on a table rooflow wrote (text columns only)."""
    import polars as pl

    exprs = []
    for name in _text_columns(frame):
        text = pl.col(name).cast(pl.String)
        exprs.append(pl.when(text.str.contains(_RESTORE)).then(text.str.slice(1))
                     .otherwise(text).alias(name))
    return frame.with_columns(exprs) if exprs else frame


def terminal_lines(text: str) -> str:
    """``text`` made of lines: each line :func:`terminal_text`, the newlines between kept."""
    return "\n".join(terminal_text(line) for line in text.split("\n"))
