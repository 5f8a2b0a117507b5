"""NIST SP 800-22 Rev. 1a statistical tests for random bit sequences, written from the document."""
