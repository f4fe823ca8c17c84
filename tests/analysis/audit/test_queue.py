"""The review queue against its definition, message by message: a message is in the "leaked"
queue when the judge found an attribute labelled private revealed in it, in the "disagree" queue
when two judges decided an attribute differently (or only one judged it), with the attributes
behind each. The oracle reads each message's audit (labels and every judge's verdicts)."""

import pytest

from cimem.analysis.audit.message import message_audit
from cimem.analysis.audit.queue import review_queue
from cimem.demo.simulate import build_demo_database
from cimem.judges.base import OfflineJudge, rejudge
from cimem.store import Store


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("queue") / "demo.duckdb"
    build_demo_database(path)
    with Store.open(path) as store:
        # a second judge that judged only some messages: "disagree" also means one judged alone
        some = [m.message_id for m in store.messages_to_judge(1)][::3]
        offline = rejudge(store, 1, OfflineJudge(), message_ids=some).judge_id
    return path, offline


@pytest.mark.parametrize("rule", ["unanimous", "threshold:0.6"])
def test_the_queue_is_its_definition_message_by_message(demo, rule):
    path, offline = demo
    with Store.open(path, read_only=True) as store:
        judge = store.find_default_judge(1)
        leaked = review_queue(store, 1, judge, filter="leaked", label_rule=rule)
        disagree = review_queue(store, 1, judge, vs=offline, filter="disagree", label_rule=rule)
        every = store.messages_to_judge(1)
        judged_by_offline = set(store.judgments_of(offline))
        want_leaked, want_disagree = {}, {}
        for m in every:
            audit = message_audit(store, m.message_id, rule)
            assert audit is not None
            private = sorted(
                a.key for a in audit.attributes if a.label == "private" and a.says(judge) == "yes"
            )
            if private:
                want_leaked[m.message_id] = tuple(private)
            differ = sorted(
                a.key
                for a in audit.attributes
                if a.says(offline) and a.says(judge) and a.says(offline) != a.says(judge)
            )
            if differ or m.message_id not in judged_by_offline:
                want_disagree[m.message_id] = tuple(differ)
    assert {i.message_id: i.attributes for i in leaked.items} == want_leaked
    assert {i.message_id: i.attributes for i in disagree.items} == want_disagree
    assert leaked.counts["leaked"] == len(want_leaked) > 0
    assert disagree.counts["disagree"] == len(want_disagree) > len(every) // 2
    assert "ungrounded" not in leaked.counts
