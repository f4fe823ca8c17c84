"""Calling language models: one OpenAI-compatible client with retries and the call cache, and
the prompt templates (the official prompts file or built-in texts).

Shared by the LLM judge and by generation, so it sits below both. May import `cimem.store`.
"""
