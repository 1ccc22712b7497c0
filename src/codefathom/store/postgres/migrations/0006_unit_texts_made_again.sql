-- Version 6: a unit's search fields are made again from its row when asked, not stored.
--
-- unit_texts held each unit's BM25F fields as SQLite's units_fts does: its name, qualified name,
-- signature, doc and body with the words of their compound identifiers, its file's path, and its
-- summary. Every one of them is made from the unit's own columns, its file's path and the summary
-- cache (`records.unit_search_fields`), and only a summary stored later or the digest read them
-- back; writing them cost a first index of java.base 82 MB and 3 s. The postings stay as they are.

DROP TABLE unit_texts;
