"""Errors of the dieharder wrapper (neither is a verdict on the sample)."""


class DieharderError(RuntimeError):
    """dieharder behaved in a way that is neither a result nor a known defect of the sample."""


class DieharderOutputError(DieharderError):
    """dieharder printed something the strict parser does not recognise (the line is named)."""
