"""The kata runtime: importing the answers under test, the state guard around each test and
import, and time limits. Used by the pytest plugin; knows nothing of pytest's reporting."""

__all__: list[str] = []
