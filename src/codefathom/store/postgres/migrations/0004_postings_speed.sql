-- Version 4: postings read index-only, their counts in columns, and no foreign key check per posting.
--
-- A query reads every posting of its words (thousands for a sentence) and weighs its counts. The
-- primary key finds them in term order but their rows lie all over the heap, a page per row: with
-- the counts and the row length in the key's leaves (INCLUDE), a query reads only the index once
-- the table is vacuumed (autovacuum does so after a bulk insert), and a unit's postings still have
-- one index to keep, not two. The counts per field were an array, of which the weighing took each
-- element apart (`tf[1] * w1 + ...`: an array copied per subscript, six times the scan's own time);
-- in columns of their own (n0, n1, ... in field order) they are read as they are.

ALTER TABLE unit_terms DROP CONSTRAINT unit_terms_pkey, ADD COLUMN n0 integer, ADD COLUMN n1 integer, ADD COLUMN n2 integer, ADD COLUMN n3 integer, ADD COLUMN n4 integer, ADD COLUMN n5 integer, ADD COLUMN n6 integer;
UPDATE unit_terms SET n0 = coalesce(tf[1], 0), n1 = coalesce(tf[2], 0), n2 = coalesce(tf[3], 0), n3 = coalesce(tf[4], 0), n4 = coalesce(tf[5], 0), n5 = coalesce(tf[6], 0), n6 = coalesce(tf[7], 0);
ALTER TABLE unit_terms DROP COLUMN tf, ALTER COLUMN n0 SET NOT NULL, ALTER COLUMN n1 SET NOT NULL, ALTER COLUMN n2 SET NOT NULL, ALTER COLUMN n3 SET NOT NULL, ALTER COLUMN n4 SET NOT NULL, ALTER COLUMN n5 SET NOT NULL, ALTER COLUMN n6 SET NOT NULL;
ALTER TABLE unit_terms ADD CONSTRAINT unit_terms_pkey PRIMARY KEY (project_id, term, unit_id)
    INCLUDE (size, n0, n1, n2, n3, n4, n5, n6);

ALTER TABLE directory_terms DROP CONSTRAINT directory_terms_pkey, ADD COLUMN n0 integer, ADD COLUMN n1 integer, ADD COLUMN n2 integer, ADD COLUMN n3 integer, ADD COLUMN n4 integer;
UPDATE directory_terms SET n0 = coalesce(tf[1], 0), n1 = coalesce(tf[2], 0), n2 = coalesce(tf[3], 0), n3 = coalesce(tf[4], 0), n4 = coalesce(tf[5], 0);
ALTER TABLE directory_terms DROP COLUMN tf, ALTER COLUMN n0 SET NOT NULL, ALTER COLUMN n1 SET NOT NULL, ALTER COLUMN n2 SET NOT NULL, ALTER COLUMN n3 SET NOT NULL, ALTER COLUMN n4 SET NOT NULL;
ALTER TABLE directory_terms ADD CONSTRAINT directory_terms_pkey PRIMARY KEY (project_id, term, directory_id)
    INCLUDE (size, n0, n1, n2, n3, n4);

-- A posting's unit goes with it by a trigger, once per statement, rather than by a foreign key,
-- whose check on every inserted posting (a lookup and a lock of its unit's row, a hundred thousand
-- times for a repository) cost a third of writing them. Postings are written only beside their
-- units, in the same transaction, so nothing else needs the check.
ALTER TABLE unit_terms DROP CONSTRAINT unit_terms_unit_id_fkey;

CREATE FUNCTION drop_unit_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM codefathom.unit_terms t USING gone WHERE t.unit_id = gone.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER units_drop_postings AFTER DELETE ON units
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION drop_unit_postings();
