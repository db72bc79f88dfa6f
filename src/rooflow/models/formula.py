"""Safe arithmetic formulas over kernel dims, compiled to polars expressions.

Spec files and ``config/families.yaml`` hold FLOP and byte formulas such as
``"E*M*N*K*2"`` or ``"min(E, M*TOPK)"``. They are never passed to ``eval``/``exec``:
:func:`compile_formula` parses the text with :func:`ast.parse` and translates a
whitelist of nodes into a polars expression evaluated over all rows at once:

* int/float literals; names (→ the Float64 column of that name);
* ``+ - * / // **``, unary ``-``/``+``, parentheses;
* calls to ``min``/``max`` (n-ary), ``ceil``/``floor`` (one argument).

``a ** b`` needs a literal exponent with ``|b| <= 8``, so ``9**9**9`` is refused at
compile time; a literal is at most ``1e18`` in size (a 401-digit one would overflow a
float). Everything else (attributes, subscripts, strings, lambdas, comprehensions,
comparisons, keywords, other calls) is an :class:`InputError`.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

import polars as pl

from rooflow.errors import InputError

MAX_LENGTH = 1000
MAX_NODES = 200
MAX_EXPONENT = 8
MAX_LITERAL = 1e18  # far above any constant of a FLOP or byte count (2**40 is 1.1e12)

_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: (a / b).floor(),
}
_CALLS = {"min", "max", "ceil", "floor"}


@dataclass(frozen=True)
class Formula:
    """A compiled formula: its text, the column names it reads and the expression."""

    text: str
    names: frozenset[str]
    expr: pl.Expr
    source: str
    what: str


def compile_formula(text: object, *, source: str, what: str = "formula") -> Formula:
    """Compile ``text`` to a :class:`Formula` evaluating in Float64.

    ``source`` (the file) and ``what`` (e.g. ``"flop of variant 'ci'"``) name the
    formula in errors.

    Raises:
        InputError: not a string, too long (> 1000 chars) or too big (> 200 AST
            nodes), a syntax error, or a construct outside the whitelist.
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError(source, f"{what} must be a non-empty string", value=text)
    if len(text) > MAX_LENGTH:
        raise InputError(source, f"{what} is longer than {MAX_LENGTH} characters",
                         value=text[:40] + "...")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        reason = getattr(err, "msg", None) or type(err).__name__
        raise InputError(source, f"{what} is not a valid formula: {reason}", value=text) from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise InputError(source, f"{what} has more than {MAX_NODES} terms", value=text)
    names: set[str] = set()
    expr = _compile(tree.body, text, source, what, names)
    return Formula(text=text, names=frozenset(names), expr=expr, source=source, what=what)


def _refuse(node: ast.AST, text: str, source: str, what: str, why: str) -> InputError:
    snippet = ast.get_source_segment(text.strip(), node) or type(node).__name__
    return InputError(source, f"{what} {text!r}: {why}", check="safe formula", value=snippet)


def _literal(node: ast.AST) -> float | None:
    """The value of a numeric literal (optionally signed), else None."""
    sign = 1.0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        sign = -1.0 if isinstance(node.op, ast.USub) else 1.0
        node = node.operand
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        try:
            return sign * float(node.value)
        except OverflowError:  # an int past the float range
            return sign * math.inf
    return None


def _compile(node: ast.AST, text: str, source: str, what: str, names: set[str]) -> pl.Expr:
    def sub(child: ast.AST) -> pl.Expr:
        return _compile(child, text, source, what, names)

    if isinstance(node, ast.Constant):
        value = _literal(node)
        if value is None or not math.isfinite(value):
            raise _refuse(node, text, source, what, "only finite int/float literals are allowed")
        if abs(value) > MAX_LITERAL:
            raise _refuse(node, text, source, what,
                          f"a literal is at most {MAX_LITERAL:g} in size")
        return pl.lit(value, dtype=pl.Float64)
    if isinstance(node, ast.Name):
        names.add(node.id)
        return pl.col(node.id).cast(pl.Float64)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        operand = sub(node.operand)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        exponent = _literal(node.right)
        if exponent is None or abs(exponent) > MAX_EXPONENT:
            raise _refuse(node, text, source, what,
                          f"'**' needs a literal exponent between -{MAX_EXPONENT} and "
                          f"{MAX_EXPONENT}")
        return sub(node.left).pow(exponent)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](sub(node.left), sub(node.right))
    if isinstance(node, ast.Call):
        func = node.func.id if isinstance(node.func, ast.Name) else None
        if func not in _CALLS:
            raise _refuse(node, text, source, what,
                          "only calls to min, max, ceil and floor are allowed")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _refuse(node, text, source, what, f"{func}() takes plain arguments only")
        args = [sub(a) for a in node.args]
        if func in ("ceil", "floor"):
            if len(args) != 1:
                raise _refuse(node, text, source, what, f"{func}() takes exactly one argument")
            return args[0].ceil() if func == "ceil" else args[0].floor()
        if not args:
            raise _refuse(node, text, source, what, f"{func}() needs at least one argument")
        return pl.min_horizontal(args) if func == "min" else pl.max_horizontal(args)
    raise _refuse(node, text, source, what, f"{type(node).__name__} is not allowed")


def evaluate(
    formula: Formula,
    frame: pl.DataFrame,
    *,
    source: str | None = None,
    where: str | None = None,
    row: str | None = None,
    positive: bool = True,
) -> pl.Series:
    """Evaluate ``formula`` on every row of ``frame``; return a Float64 Series.

    Errors name ``source`` (the file the rows came from; default the formula's
    file) and the formula with its own file. ``where`` names a String column
    describing each row in errors (e.g. the variant key); ``row`` names an integer
    column holding the 1-based row reported in errors (default: position + 1).

    Raises:
        InputError: a name is not a column of ``frame``; a name has no value (null)
            in some row; a result is not finite (overflow, division by zero) or,
            with ``positive``, is <= 0 (a count of FLOP or bytes must be > 0).
    """
    missing = sorted(formula.names - set(frame.columns))
    if missing:
        raise InputError(source or formula.source,
                         f"{_name(formula, source)} uses unknown name {missing[0]!r}",
                         check="known names", value=missing[0])
    # min/max skip nulls in polars, so a missing value must be refused before evaluating.
    for name in sorted(formula.names):
        nulls = frame[name].is_null()
        if nulls.any():
            _fail(formula, frame, int(nulls.arg_true()[0]), source, where, row,
                  f"no value for {name!r} in {_name(formula, source)}", None)
    # with_columns broadcasts a constant formula to every row (select would not).
    values = frame.with_columns(formula.expr.alias("__value"))["__value"].alias(formula.what)
    bad = ~values.is_finite()
    if positive:
        bad = bad | (values <= 0)
    if bad.any():
        index = int(bad.arg_true()[0])
        value = values[index]
        why = "is not finite" if not math.isfinite(value) else "is not positive"
        _fail(formula, frame, index, source, where, row, f"{_name(formula, source)} {why}",
              value)
    return values


def _name(formula: Formula, source: str | None) -> str:
    """The formula as named in errors; with its file when that is not the data's file."""
    named = f"{formula.what} {formula.text!r}"
    return named if source in (None, formula.source) else f"{named} ({formula.source})"


def _fail(
    formula: Formula,
    frame: pl.DataFrame,
    index: int,
    source: str | None,
    where: str | None,
    row: str | None,
    message: str,
    value: object,
) -> None:
    prefix = f"{frame[where][index]}: " if where is not None else ""
    number = int(frame[row][index]) if row is not None else index + 1
    raise InputError(source or formula.source, prefix + message, row=number, check="formula",
                     value=value)
