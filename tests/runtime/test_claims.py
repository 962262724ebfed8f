"""The run-time side of claimed module-level and captured lists and dicts
(runtime/outside_containers.py: claim_outside, check_outside_read, check_binding), called
as generated code calls them: the value read where it is passed."""

import pytest

from zygote_py import context
from zygote_py.errors import MutationError
from zygote_py.runtime.built_objects import ObjectLedger
from zygote_py.runtime.outside_containers import check_binding, check_outside_read, claim_outside

HOLDER = {}


class Box:
    def __init__(self, items):
        self.items = items


def claim(name):
    return claim_outside(HOLDER[name], name, None)  # (as generated code passes LOG)


def test_a_list_only_its_holder_refers_to_is_claimed_once_per_call():
    HOLDER["log"] = []
    with context.using(objects=ObjectLedger()) as ctx:
        claim("log")
        assert id(HOLDER["log"]) in ctx.objects.claims
        with pytest.raises(MutationError, match="already updated with derivatives earlier"):
            claim("log")
    del ctx  # (its ledger's claim holds the list: a later claim would be refused)
    with context.using(objects=ObjectLedger()):  # a new gradient call: claimed afresh
        claim("log")


def test_any_other_reference_refuses_the_claim():
    HOLDER["log"] = []
    second = HOLDER["log"]  # a variable of a running function: it could read the list later
    with context.using(objects=ObjectLedger()), \
            pytest.raises(MutationError, match="also held by something else"):
        claim("log")
    del second
    HOLDER["dict"] = {}
    holder = Box(HOLDER["dict"])  # an object holding it
    with context.using(objects=ObjectLedger()), \
            pytest.raises(MutationError, match="also held by something else"):
        claim("dict")
    holder.items = None
    with context.using(objects=ObjectLedger()):
        claim("dict")


def test_reads_after_the_claim_are_checked_by_identity_and_through_holders():
    HOLDER["log"] = []
    with context.using(objects=ObjectLedger()):
        check_outside_read(HOLDER["log"], "log")  # nothing claimed: nothing to refuse
        claim("log")
        check_outside_read({"other": [1.0]}, "CFG")  # unrelated values pass
        with pytest.raises(MutationError, match="'log' is \\(or holds\\) the list 'log'"):
            check_outside_read(HOLDER["log"], "log")
        with pytest.raises(MutationError, match="'REG' is \\(or holds\\) the list 'log'"):
            check_outside_read(Box([HOLDER["log"]]), "REG")


def test_a_nested_gradient_call_shares_the_claims():
    HOLDER["log"] = []
    with context.using(objects=ObjectLedger()):
        claim("log")
        with context.using(objects=ObjectLedger()), \
                pytest.raises(MutationError, match="is \\(or holds\\)"):  # made inside: shared
            check_outside_read(HOLDER["log"], "log")


def test_the_binding_check():
    a, b = [], []
    check_binding(a, a, "LOG")
    with pytest.raises(MutationError, match="was rebound"):
        check_binding(b, a, "LOG")


def test_plain_value_of_a_type_whose_module_is_not_a_string():
    # Cython functions' type (numpy.random's default_rng on Python 3.10) has a descriptor
    # as __module__: plain_value raised AttributeError while a gradient ran
    from zygote_py.runtime.outside_containers import plain_value

    odd = type("OddModule", (), {"__module__": property(lambda self: "elsewhere")})
    assert plain_value(odd()) is False
