-- Version 5: postings packed a file at a time, a row per term and file rather than per term and unit.
--
-- A row per posting made writing them most of a first index's server time (java.base: 5.3 million
-- rows, 28 s of 58). A file's units share most of their terms, so a row per term and file holds
-- four postings on average and a first index writes a quarter of the rows. A row's `packed` holds
-- a record per unit with the term (store/postings.py): the unit's offset from `first_id`, its length
-- in tokens and the term's occurrences per field, each a big-endian int4. A directory node is a group
-- of its own (offset 0). A file's units are written and deleted together, so its rows are too.

CREATE TABLE unit_postings (
    project_id bigint NOT NULL,
    term       text COLLATE "C" NOT NULL,
    file_id    bigint NOT NULL,
    first_id   bigint NOT NULL,
    packed     bytea NOT NULL,
    PRIMARY KEY (project_id, term, file_id)
);
CREATE INDEX unit_postings_file ON unit_postings(file_id);

INSERT INTO unit_postings (project_id, term, file_id, first_id, packed)
SELECT t.project_id, t.term, u.file_id, f.first_id,
       string_agg(int4send((t.unit_id - f.first_id)::int4) || int4send(t.size) || int4send(t.n0) || int4send(t.n1)
                  || int4send(t.n2) || int4send(t.n3) || int4send(t.n4) || int4send(t.n5) || int4send(t.n6),
                  ''::bytea ORDER BY t.unit_id)
FROM unit_terms t
JOIN units u ON u.id = t.unit_id
JOIN (SELECT file_id, min(id) AS first_id FROM units GROUP BY file_id) f ON f.file_id = u.file_id
GROUP BY t.project_id, t.term, u.file_id, f.first_id;

CREATE TABLE directory_postings (
    project_id   bigint NOT NULL,
    term         text COLLATE "C" NOT NULL,
    directory_id bigint NOT NULL REFERENCES directories(id) ON DELETE CASCADE,
    first_id     bigint NOT NULL,
    packed       bytea NOT NULL,
    PRIMARY KEY (project_id, term, directory_id)
);
CREATE INDEX directory_postings_directory ON directory_postings(directory_id);

INSERT INTO directory_postings (project_id, term, directory_id, first_id, packed)
SELECT project_id, term, directory_id, directory_id,
       int4send(0) || int4send(size) || int4send(n0) || int4send(n1) || int4send(n2) || int4send(n3) || int4send(n4)
FROM directory_terms;

DROP TRIGGER units_drop_postings ON units;
DROP FUNCTION drop_unit_postings();
DROP TABLE unit_terms;
DROP TABLE directory_terms;

-- A file's postings go with its units, by a trigger once per statement (no foreign key: a row
-- holds many units).
CREATE FUNCTION drop_unit_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM codefathom.unit_postings p USING (SELECT DISTINCT file_id FROM gone) g WHERE p.file_id = g.file_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER units_drop_postings AFTER DELETE ON units
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION drop_unit_postings();
