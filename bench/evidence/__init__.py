"""The evidence record (ground layer): one versioned model of measurements, observations and attachments.

See :mod:`bench.evidence.record` for the model and :mod:`bench.evidence.upgrade` for reading
journals written under earlier schema versions.
"""

from bench.evidence.record import (
    EVIDENCE_SCHEMA_VERSION,
    EVIDENCE_TABLES,
    READABLE_SCHEMA_VERSIONS,
    Attachment,
    EvidenceModel,
    JackpotPath,
    Journalled,
    JsonData,
    Measurement,
    Observation,
    PocketCounts,
    PositionCounts,
    RtpInterval,
    SequentialPath,
    Series,
    check_criterion,
    columns,
    judge,
)
from bench.evidence.upgrade import SchemaVersionError, check_readable, measurement_from_row

__all__ = [
    "EVIDENCE_SCHEMA_VERSION",
    "EVIDENCE_TABLES",
    "READABLE_SCHEMA_VERSIONS",
    "Attachment",
    "EvidenceModel",
    "JackpotPath",
    "Journalled",
    "JsonData",
    "Measurement",
    "Observation",
    "PocketCounts",
    "PositionCounts",
    "RtpInterval",
    "SchemaVersionError",
    "SequentialPath",
    "Series",
    "check_criterion",
    "check_readable",
    "columns",
    "judge",
    "measurement_from_row",
]
