"""``python -m advisor`` runs the ``emissary`` command line."""

from .entry import run

run()
