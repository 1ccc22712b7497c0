-- Version 4: postings read index-only. A query reads every posting of its words (thousands for a
-- sentence), which the primary key finds in term order but whose rows lie all over the heap, a page
-- per row; with the counts and the row length in the key's leaves (INCLUDE), a query reads only
-- the index once the table is vacuumed (autovacuum does so after a bulk insert), and a unit's
-- postings still have one index to keep, not two.

ALTER TABLE unit_terms
    DROP CONSTRAINT unit_terms_pkey,
    ADD CONSTRAINT unit_terms_pkey PRIMARY KEY (project_id, term, unit_id) INCLUDE (tf, size);

ALTER TABLE directory_terms
    DROP CONSTRAINT directory_terms_pkey,
    ADD CONSTRAINT directory_terms_pkey PRIMARY KEY (project_id, term, directory_id) INCLUDE (tf, size);

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
