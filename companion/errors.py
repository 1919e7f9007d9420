"""Errors a user can fix: the command prints the message on one line and exits 1."""


class UserError(Exception):
    """A problem with what the user asked for or with the machine; the message says what to do."""


class ConfigError(UserError):
    """The config file is wrong. The message names the file, the section and key, and what is
    wanted, as in ``config.toml: [mqtt] port: a port is 1 to 65535, not 0``."""
