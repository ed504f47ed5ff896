"""A bot that exits before its handshake."""
import sys

sys.exit(3)
