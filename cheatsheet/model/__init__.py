"""What the project is made of: languages and devices, the page model (entries and fences), the
rules table, the verification record and its verdicts, and the one writer of page files."""
