"""
schemathesis hooks module for `npm run schemathesis` (run.ts sets SCHEMATHESIS_HOOKS to this file).

Reach (CONTRACT-20): records which operations the stateful phase called, and with which status, so run.ts can print
how many operations its chains of linked calls reached. run.ts sets SCHEMATHESIS_REACH_FILE to the file to append to:
one line `<operationId> <status>` per stateful call (the other phases are not recorded).

Idempotency keys in chains (CONTRACT-23): in the stateful phase each call that carries an `Idempotency-Key` gets a key
of its own. Generated keys repeat (Hypothesis draws the document's example and short strings again and again), and a
repeated key with the same body is answered with the first answer replayed (IDEM-2): a 201 naming a resource that a
chain may since have deleted, which the stateful check of created resources (ST302) reads as a resource gone missing.
The other phases send the keys as generated (the replay and the 422 of IDEM-3 are theirs and the jest suite's).
"""

import os
import uuid

import schemathesis
from schemathesis.generation.meta import TestPhase

_REACH_FILE = os.environ.get("SCHEMATHESIS_REACH_FILE")


def _in_stateful_phase(case) -> bool:
    return case.meta is not None and case.meta.phase.name == TestPhase.STATEFUL


@schemathesis.hook
def before_call(context, case, **kwargs):
    if not _in_stateful_phase(case) or not case.headers:
        return
    for name in list(case.headers):
        if name.lower() == "idempotency-key":
            case.headers[name] = f"stateful-{uuid.uuid4()}"


@schemathesis.hook
def after_call(context, case, response):
    if not _REACH_FILE or not _in_stateful_phase(case):
        return
    operation_id = case.operation.definition.raw.get("operationId") or case.operation.label
    with open(_REACH_FILE, "a", encoding="utf-8") as reach:
        reach.write(f"{operation_id} {response.status_code}\n")
