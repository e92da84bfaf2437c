"""Caribbean Stud Poker (聯獎撲克), Dispatch 61/2004 (SPEC CSP-1 … CSP-13)."""
