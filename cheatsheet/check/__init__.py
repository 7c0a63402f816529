"""What can be known by reading the pages: the entry checker, and the output lines an example
should show after a run (checked and written by the same function)."""
