"""Benchmarks of the course (`make bench`): results in bench/results/ as JSON and PNG."""
