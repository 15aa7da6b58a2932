"""Exceptions raised by conjunct. All of them are ``ValueError`` subclasses."""

from __future__ import annotations

from typing import Optional


class ConjunctError(ValueError):
    """Base class of conjunct's errors about bad input or bad files."""


class _Located(ConjunctError):
    """An error about a place in a file: the message starts with ``source:line:``.

    Parameters
    ----------
    problem : str
        What is wrong.
    source : str, optional
        The file (or other input) it is wrong in.
    line : int, optional
        The 1-based line, when known.
    """

    default_source = "<input>"

    def __init__(self, problem: str, source: Optional[str] = None, line: Optional[int] = None):
        self.problem = problem
        self.source = source
        self.line = line
        where = source or self.default_source
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {problem}")


class DataFormatError(_Located):
    """A data file (or in-memory data) is malformed.

    The message names the source, the 1-based line when known, and the problem.

    Parameters
    ----------
    problem : str
        What is wrong.
    source : str, optional
        The file (or other input) it is wrong in.
    line : int, optional
        The 1-based line, when known.
    """


class ModelFormatError(_Located):
    """A model file is foreign, corrupt, truncated, or of an unsupported kind.

    Parameters
    ----------
    problem : str
        What is wrong.
    source : str, optional
        The model file.
    line : int, optional
        The 1-based line of a text model file, when known.
    """

    default_source = "<model>"


class UnknownFeaturesWarning(UserWarning):
    """None of the features of a single vector is known to the model: it is
    classified as the empty vector (usually features named differently from
    the training data)."""
