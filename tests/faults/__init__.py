"""Fault, concurrency and tamper tests of the table service (issue 9, item 8): processes killed
with SIGKILL at random moments and restarted, eight processes on one PostgreSQL meter, and
records changed in SQL behind the service's back."""
