"""Reading English: one vocabulary for what text says (sentences, kinds, subjects, meaning)."""
