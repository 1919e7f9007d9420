"""Errors a user can fix: the command prints the message on one line and exits 1."""


class UserError(Exception):
    """A problem with what the user asked for or with the machine; the message says what to do."""
