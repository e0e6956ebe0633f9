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

The run's own caller (CONTRACT-24): chains follow links from the lists to the first group and user, which are the
bootstrap admin's, and ADMIN-1 lets an admin's rights go once another user holds `admin`: a chain that removed the
admin from its group, replaced that group's permissions or deleted its user or key left every later call of the run a
403 (one run reached 62 of 114 operations so). run.ts names the caller's user, group and key in
SCHEMATHESIS_PROTECTED (JSON); a call in any phase that would change one of them is sent to a fresh id instead, so it
is still made and answered (404). ADMIN-1 itself is the jest suite's.
"""

import json
import os
import uuid

import schemathesis
from schemathesis.generation.meta import TestPhase

_REACH_FILE = os.environ.get("SCHEMATHESIS_REACH_FILE")
_PROTECTED = json.loads(os.environ.get("SCHEMATHESIS_PROTECTED") or "{}")

# operationId -> the path parameters that, all naming the caller's own user, group or key, would take the caller's
# rights away (removeGroupMember needs both: the admin leaving another group keeps `admin` through its own).
_CALLER_CHANGES = {
    "deleteUser": {"userId": "userId"},
    "deleteGroup": {"groupId": "groupId"},
    "setGroupPermissions": {"groupId": "groupId"},
    "removeGroupMember": {"groupId": "groupId", "userId": "userId"},
    "deleteApiKey": {"keyId": "keyId"},
}


def _in_stateful_phase(case) -> bool:
    return case.meta is not None and case.meta.phase.name == TestPhase.STATEFUL


def _protect_caller(case) -> None:
    operation_id = case.operation.definition.raw.get("operationId")
    parameters = _CALLER_CHANGES.get(operation_id)
    if not parameters or not _PROTECTED or not case.path_parameters:
        return
    if all(case.path_parameters.get(name) == _PROTECTED.get(kind) for name, kind in parameters.items()):
        for name in parameters:
            case.path_parameters[name] = str(uuid.uuid4())
        if _REACH_FILE and _in_stateful_phase(case):
            with open(_REACH_FILE, "a", encoding="utf-8") as reach:
                reach.write(f"# kept off the caller: {operation_id}\n")


@schemathesis.hook
def before_call(context, case, **kwargs):
    _protect_caller(case)
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
