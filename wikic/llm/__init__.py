"""The LLM layer: one OpenAI-compatible client, typed replies with one re-ask (a reply whose lists run over
their limits kept within them, `fit.py`), a reply cache that keeps what each reply cost, and a prompt counted by
the endpoint's own tokenizer where its server has one (`tokenizer.py`).

settings = load_settings(vault)
llm = OpenAICompatible(settings.llm, state_dir=state_dir(vault))        # wikic.vault.state
result = ask(llm, messages, MyReply, schema_name="my_reply", max_tokens=1024,
             cache=ReplyCache.for_vault(vault))
"""
