"""``python -m advisor`` runs the ``emissary`` command line."""

from .cli import run

run()
