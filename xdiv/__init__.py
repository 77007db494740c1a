"""xdiv: evaluate diversified search results and meta-evaluate the measures."""
