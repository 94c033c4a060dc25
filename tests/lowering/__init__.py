"""Tests that lowering (flatten-signatures, wrap-entry-points) preserves meaning."""
