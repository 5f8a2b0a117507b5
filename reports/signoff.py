"""The certificate's sign-off: its number in the laboratory's sequence and the people who reviewed and approved it.

Both are journalled as events of the run (``certificate-number``, ``approval``), so the hash chain and the
signed manifest cover them. An approval carries an Ed25519 signature by the laboratory key over
:func:`approval_payload`: the run, the role, the person, the moment and the journal's chain head when the
approval was given (the evidence it approves). ``bench approve`` writes them; this module reads and checks them.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from bench.journal import Journal
from reports.signing import signature_valid

NUMBER_EVENT = "certificate-number"
APPROVAL_EVENT = "approval"
ROLES = ("reviewer", "approver")
"""Sign-off roles, in the order they sign: a reviewer checks the run, then an approver issues the certificate."""


@dataclass(frozen=True)
class Approval:
    """One person's signed approval of the run in a role."""

    role: str
    name: str
    at: str
    chain_head: str
    key_fingerprint: str
    signature: str

    def valid(self, run_id: str, public: Ed25519PublicKey) -> bool:
        """Whether the signature is the laboratory key's over this approval of ``run_id``."""
        try:
            raw = base64.b64decode(self.signature, validate=True)
        except ValueError:
            return False
        return signature_valid(public, approval_payload(run_id, self.role, self.name, self.at, self.chain_head), raw)


@dataclass(frozen=True)
class SignOff:
    """The certificate number (None until one is assigned) and the approvals, oldest first."""

    number: str | None
    approvals: tuple[Approval, ...]

    def by_role(self, role: str) -> Approval | None:
        return next((item for item in self.approvals if item.role == role), None)


def approval_payload(run_id: str, role: str, name: str, at: str, chain_head: str) -> bytes:
    """The bytes an approval's signature covers (canonical JSON)."""
    return json.dumps({"run_id": run_id, "role": role, "name": name, "at": at, "chain_head": chain_head},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def read_signoff(journal: Journal, run_id: str) -> SignOff:
    """The run's certificate number and approvals as journalled."""
    number = None
    approvals = []
    for row in journal.rows("events", "run_id = ? AND kind IN (?, ?)", (run_id, NUMBER_EVENT, APPROVAL_EVENT)):
        detail = row["detail"] if isinstance(row["detail"], dict) else {}
        if row["kind"] == NUMBER_EVENT and number is None:
            number = str(detail.get("number", "")) or None
        elif row["kind"] == APPROVAL_EVENT:
            approvals.append(Approval(**{key: str(detail.get(key, "")) for key in
                                         ("role", "name", "at", "chain_head", "key_fingerprint", "signature")}))
    return SignOff(number, tuple(approvals))
