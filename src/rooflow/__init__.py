"""rooflow: validated GPU kernel measurements → roofline tables and plots."""

__version__ = "0.1.0"
