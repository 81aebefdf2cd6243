"""Random graph generators (edge lists as NumPy arrays)."""

from .rmat import rmat

__all__ = ["rmat"]
