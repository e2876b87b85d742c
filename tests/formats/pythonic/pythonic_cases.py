"""Python-literal call fixtures shared by the pythonic, olmo3 and lfm2 tests.

The strings and expected values are from vLLM's tests/tool_parsers/test_pythonic_tool_parser.py
and test_olmo3_tool_parser.py (Apache-2.0, Copyright contributors to the vLLM project); the
two suites use the same ones.
"""

from __future__ import annotations

SIMPLE = "get_weather(city='San Francisco', metric='celsius')"
SIMPLE_ARGS = {"city": "San Francisco", "metric": "celsius"}
MORE_TYPES = (
    "register_user(name='John Doe', "
    "age=37, "
    "address={'city': 'San Francisco', 'state': 'CA'}, "
    "role=None, "
    "passed_test=True, "
    "aliases=['John', 'Johnny'])"
)
MORE_TYPES_ARGS = {
    "name": "John Doe",
    "age": 37,
    "address": {"city": "San Francisco", "state": "CA"},
    "role": None,
    "passed_test": True,
    "aliases": ["John", "Johnny"],
}
PARAMETERLESS = "get_weather()"
EMPTY_DICT = "do_something_cool(additional_data={})"
EMPTY_LIST = "do_something_cool(steps=[])"
ESCAPED = r"get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')"
ESCAPED_ARGS = {"city": "Martha's Vineyard", "metric": '"cool units"'}
