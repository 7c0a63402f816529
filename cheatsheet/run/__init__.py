"""Running examples, apart from pytest: worker processes per device, shell examples, and the
session that owns them (pools, worker info, figures)."""
