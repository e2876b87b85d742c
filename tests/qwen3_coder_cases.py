"""Model text shared by the Qwen3-Coder-family suites (qwen3_coder, step3p5 and the SGLang
cases).

From vLLM ``tests/tool_parsers/test_qwen3coder_tool_parser.py`` (Apache-2.0, Copyright
contributors to the vLLM project).
"""

WEATHER_DALLAS = """<tool_call>
<function=get_current_weather>
<parameter=city>
Dallas
</parameter>
<parameter=state>
TX
</parameter>
<parameter=unit>
fahrenheit
</parameter>
</function>
</tool_call>"""
