"""The registry of derivative rules, keyed by the object they differentiate.

A reverse rule is an ordinary Python function

    @vjp(np.multiply, operator.mul)
    def multiply(g, y, a, b):
        return unbroadcast(g * b, a), unbroadcast(g * a, b)

whose first two parameters are the output cotangent `g` and the primal output
`y`, followed by the primal's own parameters (with the primal's defaults).  It
returns one cotangent per differentiable parameter (a tuple when there are
several; `None` means zero).  By default the differentiable parameters are the
ones without a default value; `diff=` names them explicitly.

The compiler does not call the rule: it lowers the rule's body once, splices
it into the adjoint at each call site with the call's values substituted for
the parameters, and drops the cotangents of inactive arguments.  The same
function stays callable, which the runtime uses for calls it can only resolve
while running, and the tests use to check every rule numerically.  A rule's
body may use assignments, arithmetic, calls, conditionals and `return`; it
must be pure.

Methods and attributes of a type are registered by name (`vjp_method`,
`vjp_attr`); functions whose results never carry a derivative (argmax, floor,
shape, ...) are registered with `nondifferentiable`, and produce no adjoint.
Each rule has a `jvp` slot for its forward-mode rule.

Complex values (docs/complex.md).  A rule is written for real values; it is
also used on complex ones only where that is declared: `complex_ok=True` (or
`declare_complex_ok`) for a rule whose body is right as it stands under the
covector convention (holomorphic functions: g * f'(z), transposes, never
conjugates), or `complex_variant(primal)` for a separate body with the
explicit non-holomorphic formula (abs, angle, conj, real, imag, var, norm).
`for_complex(rule)` gives the rule to splice where a value may be complex, or
None: the caller then refuses complex values (rules/complex_rules.py).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from zygote_py.qualnames import qualified_name  # (also read as registry.qualified_name)


@dataclass
class Rule:
    """A reverse rule: the primal it differentiates and how to bind a call to it."""

    primal: Any
    qualname: str
    vjp: Callable
    params: tuple[inspect.Parameter, ...]  # the primal's parameters, as the rule declares them
    diff: tuple[str, ...]  # differentiable parameter names, in the order the rule returns them
    jvp: Callable | None = None
    meta: dict = field(default_factory=dict)
    # (jvp, the forward rule made from it for values that may be complex): forward_rule's
    # cache, on this object alone (a complex variant of the rule shares its meta, not this)
    complex_forward: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def complex_ok(self) -> bool:
        """Whether the rule is declared right for complex values (as is or by a variant)."""
        return bool(self.meta.get("complex_ok")) or "complex_vjp" in self.meta

    @property
    def takes_array_likes(self) -> bool:
        """Whether the primal reads each differentiable operand as an array (a ufunc, or a
        rule marked elementwise: np.clip): a list or tuple there is NumPy's array of it,
        and the rule's body is given that array (it may compare or multiply its operands,
        which a list does not support); the list's cotangent is then an array, added item
        by item."""
        return type(self.primal).__name__ == "ufunc" or bool(self.meta.get("elementwise"))

    def bind(self, args: tuple, kwargs: dict) -> dict[str, Any]:
        """Map call-site arguments (any objects) to the rule's primal parameters.

        Raises TypeError when the call does not fit the rule's signature.
        Parameters the call leaves out take their defaults.
        """
        sig = inspect.Signature(list(self.params))
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)


# Keyed by the primal object itself (functions, ufuncs and builtins hash by identity).
_FUNCTION_RULES: dict[Any, Rule] = {}
# (type, method or attribute name) -> Rule
_METHOD_RULES: dict[tuple[type, str], Rule] = {}
_ATTR_RULES: dict[tuple[type, str], Rule] = {}
_NONDIFF_FUNCTIONS: dict[Any, str] = {}
_NONDIFF_METHODS: dict[tuple[type, str], str] = {}
_NONDIFF_ATTRS: dict[tuple[type, str], str] = {}
# Functions only some supported Python or NumPy versions have (see `since`): qualified name ->
# the version that brings them, and the rules declared for those this interpreter lacks, so
# docs/rules.md lists the same entries, each with its note, on every version.
_REQUIREMENTS: dict[str, str] = {}
_ABSENT_RULES: dict[str, Callable] = {}
_ABSENT_NONDIFF: set[str] = set()


# Rule modules of optional libraries (SciPy), imported on demand: the library's module whose
# presence in sys.modules triggers the import -> the rule module.  A user's code that calls
# scipy.special has imported it, so its rules are there before the first lookup; importing
# zygote_py does not import SciPy (over a second for scipy.stats).
_OPTIONAL_RULES: dict[str, str] = {}


def optional_rules(trigger: str, rules_module: str) -> None:
    """Import `rules_module` (which registers rules) once `trigger` has been imported, or
    when every rule is asked for (`all_rules`, the table)."""
    _OPTIONAL_RULES[trigger] = rules_module


def load_optional_rules(everything: bool = False) -> None:
    """Import the optional rule modules whose trigger is imported (all of them: everything)."""
    for trigger, module in list(_OPTIONAL_RULES.items()):
        # pop first: another thread, or an import the module itself triggers, does not repeat it
        if (everything or trigger in sys.modules) and _OPTIONAL_RULES.pop(trigger, None) is not None:
            importlib.import_module(module)


def _load_triggered() -> None:
    if _OPTIONAL_RULES:
        load_optional_rules()


def declare_absent(qualname: str, fn: Callable) -> None:
    """Record the rule of a function or method an optional library that is not installed
    would provide: listed in the table, never registered."""
    _ABSENT_RULES[qualname] = fn


@dataclass(frozen=True)
class Absent:
    """Stands for a function this Python or NumPy lacks: a rule declared for it is recorded for
    the table but never registered (nothing can call a function that does not exist)."""

    qualname: str


def since(module: Any, name: str, requirement: str) -> Any:
    """`module.name` where this interpreter has it, else an `Absent` marker; either way the
    name is noted as needing `requirement` (e.g. "NumPy 2.1", "Python 3.12")."""
    fn = getattr(module, name, None)
    qual = qualified_name(fn) if fn is not None else f"{module.__name__}.{name}"
    _REQUIREMENTS[qual] = requirement
    return fn if fn is not None else Absent(qual)


def requirement(qualname: str) -> str | None:
    """The version a version-specific function needs, or None for one every version has."""
    return _REQUIREMENTS.get(qualname)


def absent_rules() -> dict[str, Callable]:
    """Rules declared for functions this interpreter lacks: qualified name -> rule function."""
    load_optional_rules(everything=True)
    return dict(_ABSENT_RULES)


def _rule_params(fn: Callable, skip: int) -> tuple[inspect.Parameter, ...]:
    params = list(inspect.signature(fn).parameters.values())
    if len(params) < skip:
        raise TypeError(f"rule {fn.__name__} must take (g, y, *primal_params)")
    # a primal parameter may be named g or y: the splice binds the rule's cotangent and
    # output under names no parameter can have (ad/splice.py: COTANGENT, OUTPUT)
    return tuple(params[skip:])


def _default_diff(params: tuple[inspect.Parameter, ...]) -> tuple[str, ...]:
    return tuple(
        p.name
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )


def vjp(*primals: Any, diff: tuple[str, ...] | None = None, jvp: Callable | None = None,
        name: str | None = None, **meta: Any) -> Callable:
    """Register the decorated function as the reverse rule of each primal.

    `jvp=` attaches a forward-mode rule at the same time (see `jvp` below); `name=` gives
    the public name to list it by where the object's own names are private (SciPy's).
    """

    def register(fn: Callable) -> Callable:
        params = _rule_params(fn, 2)
        names = diff if diff is not None else _default_diff(params)
        for primal in primals:
            if isinstance(primal, Absent):  # a function this Python or NumPy lacks
                _ABSENT_RULES[primal.qualname] = fn
                continue
            if primal is None:
                continue
            _FUNCTION_RULES[primal] = Rule(primal, name or qualified_name(primal), fn, params, names,
                                           jvp=jvp, meta=meta)
        return fn

    return register


def vjp_method(cls: type, *names: str, diff: tuple[str, ...] | None = None,
               jvp: Callable | None = None, public: str | None = None, **meta: Any) -> Callable:
    """Register a reverse rule for methods `cls.name(self, ...)`; `self` is a primal parameter.
    `public=` names the class in listings where its own name is private (SciPy's)."""

    def register(fn: Callable) -> Callable:
        params = _rule_params(fn, 2)
        names_diff = diff if diff is not None else _default_diff(params)
        for name in names:
            qual = f"{public or qualified_name(cls)}.{name}"
            _METHOD_RULES[(cls, name)] = Rule((cls, name), qual, fn, params, names_diff, jvp=jvp,
                                              meta=meta)
        return fn

    return register


def vjp_attr(cls: type, *names: str, since: str | None = None) -> Callable:
    """Register a reverse rule for attribute reads `obj.name`; the rule is (g, y, self).

    `since="NumPy 2.0"` marks attributes only newer versions have: where `cls` lacks one, the
    rule is recorded for the table but not registered, as `since` does for functions."""

    def register(fn: Callable) -> Callable:
        params = _rule_params(fn, 2)
        for name in names:
            qual = f"{qualified_name(cls)}.{name}"
            if since is not None:
                _REQUIREMENTS[qual] = since
                if not hasattr(cls, name):
                    _ABSENT_RULES[qual] = fn
                    continue
            _ATTR_RULES[(cls, name)] = Rule((cls, name), qual, fn, params, _default_diff(params))
        return fn

    return register


def jvp(primal: Any) -> Callable:
    """Attach a forward-mode rule `(dx..., y, *primal_params) -> dy` to a registered primal:
    a function, or `(cls, name)` for a method."""

    def register(fn: Callable) -> Callable:
        if isinstance(primal, tuple):
            _METHOD_RULES[primal].jvp = fn
        else:
            _FUNCTION_RULES[primal].jvp = fn
        return fn

    return register


def _rules_of(primal: Any) -> list[Rule]:
    """The registered rules of a function, `(cls, name)` method or `("attr", cls, name)`."""
    if isinstance(primal, tuple) and len(primal) == 3 and primal[0] == "attr":
        if primal[1:] not in _ATTR_RULES and f"{qualified_name(primal[1])}.{primal[2]}" in _ABSENT_RULES:
            return []  # an attribute this NumPy lacks (vjp_attr's since=)
        return [_ATTR_RULES[primal[1:]]]
    if isinstance(primal, tuple):
        return [_METHOD_RULES[primal]]
    return [_FUNCTION_RULES[primal]]


def declare_complex_ok(*primals: Any) -> None:
    """Declare registered rules right for complex values as written (checked by
    tests/rules/test_complex_rules.py against finite differences in both directions)."""
    for primal in primals:
        if primal is not None:
            for rule in _rules_of(primal):
                rule.meta["complex_ok"] = True


def complex_variant(*primals: Any) -> Callable:
    """Register the decorated function as the complex-value body of registered rules
    (same parameters as the real one); it must also be right for real values."""

    def register(fn: Callable) -> Callable:
        for primal in primals:
            if primal is not None:
                for rule in _rules_of(primal):
                    rule.meta["complex_vjp"] = fn
        return fn

    return register


def for_complex(rule: Rule) -> Rule | None:
    """The rule to use where a value may be complex: rule itself, its complex
    variant, or None (not declared: complex values are refused)."""
    variant = rule.meta.get("complex_vjp")
    if variant is not None:
        return Rule(rule.primal, rule.qualname, variant, rule.params, rule.diff, rule.jvp, rule.meta)
    return rule if rule.meta.get("complex_ok") else None


# How the forward rule to run where a value may be complex is chosen: rules/jvp_complex.py
# decides, and installs that choice here when the rules are imported, so that the forward
# dispatcher (runtime/) asks the registry alone and never a rule module above it.
_FORWARD_CHOICE: dict[str, Callable[[Rule], Callable | None]] = {}


def choose_forward_rules(choose: Callable[[Rule], Callable | None]) -> None:
    """Install the function that gives a rule's forward rule for values that may be complex."""
    _FORWARD_CHOICE["complex"] = choose


def forward_rule(rule: Rule) -> Callable | None:
    """The forward rule of `rule` to run where a value may be complex (right for real values
    too; rules/jvp_complex.py says which), or None where the rule has no forward rule."""
    return _FORWARD_CHOICE["complex"](rule)


def nondifferentiable(*primals: Any) -> None:
    """Declare functions whose results carry no derivative (treated as constants)."""
    for primal in primals:
        if isinstance(primal, Absent):
            _ABSENT_NONDIFF.add(primal.qualname)
        elif primal is not None:
            _NONDIFF_FUNCTIONS[primal] = qualified_name(primal)


def nondifferentiable_as(primal: Any, qualname: str) -> None:
    """Declare one function non-differentiable, listed under the public name given."""
    _NONDIFF_FUNCTIONS[primal] = qualname


def nondifferentiable_methods(cls: type, *names: str) -> None:
    for name in names:
        _NONDIFF_METHODS[(cls, name)] = f"{qualified_name(cls)}.{name}"


def nondifferentiable_attrs(cls: type, *names: str) -> None:
    for name in names:
        _NONDIFF_ATTRS[(cls, name)] = f"{qualified_name(cls)}.{name}"


# @zp.adjoint: user rules of the form rule(*args) -> (y, back), consulted before anything else
_CUSTOM_RULES: dict[Any, Callable] = {}


def register_custom(fn: Any, rule: Callable) -> None:
    _CUSTOM_RULES[fn] = rule


def custom_rule(fn: Any) -> Callable | None:
    return _CUSTOM_RULES.get(fn) if _hashable(fn) else None


def _hashable(obj: Any) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def function_rule(fn: Any) -> Rule | None:
    _load_triggered()
    return _FUNCTION_RULES.get(fn) if _hashable(fn) else None


def is_nondifferentiable(fn: Any) -> bool:
    _load_triggered()
    return _hashable(fn) and fn in _NONDIFF_FUNCTIONS


def method_rule(cls: type, name: str) -> Rule | None:
    _load_triggered()
    for klass in cls.__mro__:
        rule = _METHOD_RULES.get((klass, name))
        if rule is not None:
            return rule
    return None


def method_is_nondifferentiable(cls: type, name: str) -> bool:
    return any((klass, name) in _NONDIFF_METHODS for klass in cls.__mro__)


def attr_rule(cls: type, name: str) -> Rule | None:
    _load_triggered()
    for klass in cls.__mro__:
        rule = _ATTR_RULES.get((klass, name))
        if rule is not None:
            return rule
    return None


def attr_is_nondifferentiable(cls: type, name: str) -> bool:
    return any((klass, name) in _NONDIFF_ATTRS for klass in cls.__mro__)


def method_names_with_rules(cls: type) -> set[str]:
    return {name for (klass, name) in _METHOD_RULES if klass is cls}


def nondiff_method_names(cls: type) -> set[str]:
    return {name for (klass, name) in _NONDIFF_METHODS if klass is cls}


def all_rules() -> list[Rule]:
    load_optional_rules(everything=True)
    return [*_FUNCTION_RULES.values(), *_METHOD_RULES.values(), *_ATTR_RULES.values()]


def supported() -> list[str]:
    """Qualified names of every function, method and attribute with a derivative rule."""
    return sorted({rule.qualname for rule in all_rules()})


def absent_nondifferentiable_names() -> list[str]:
    """Non-differentiable functions declared for versions other than this one."""
    return sorted(_ABSENT_NONDIFF)


def nondifferentiable_names() -> list[str]:
    """Qualified names of everything registered as carrying no derivative."""
    load_optional_rules(everything=True)
    return sorted({*_NONDIFF_FUNCTIONS.values(), *_NONDIFF_METHODS.values(), *_NONDIFF_ATTRS.values()})
