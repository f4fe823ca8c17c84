"""Published numbers of the CIMemories paper, for reference layers (never mixed with ours).

Table 1: Violation@5 and Completeness in percent, 10 profiles, n = 5, prompt level 1.
Figure 2: GPT-5's accumulation points.
"""

TABLE1 = [
    ("GPT-4o", 14.82, 43.95),
    ("GPT-5", 25.08, 56.61),
    ("o3", 38.51, 55.00),
    ("Claude-4 Sonnet", 44.44, 59.07),
    ("Llama-3.3-70B-Instruct", 44.43, 53.99),
    ("Gemini 2.5 Flash", 46.35, 52.83),
    ("Mistral-7B-Instruct-v0.3", 56.94, 46.56),
    ("Qwen-3-32B", 69.14, 57.63),
]
TABLE1_NOTE = "published Table 1 (arXiv 2511.14937): 10 profiles, n = 5, level 1, official script"

# (tasks, samples per task, violation %) for GPT-5
FIGURE2 = [(1, 1, 0.1), (40, 1, 9.6), (40, 5, 25.1)]
FIGURE2_NOTE = (
    "published Figure 2 points for GPT-5; the paper does not say how task subsets were chosen"
)
