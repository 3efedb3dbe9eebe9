-- Included by suites that feed crafted bytes to a type's binary receive
-- function: pg_temp.copy_binary(tbl, payload) writes one binary COPY row
-- whose only field is payload, COPYs it into tbl (emptied first), and
-- returns the value it read as text.
CREATE FUNCTION pg_temp.copy_binary(tbl regclass, payload bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    path text := current_setting('data_directory') || '/acmetrace_binary_copy.bin';
    col name := (SELECT attname FROM pg_attribute WHERE attrelid = tbl AND attnum = 1);
    lo oid;
    result text;
BEGIN
    lo := lo_from_bytea(0, '\x5047434f50590aff0d0a00'::bytea || '\x0000000000000000'::bytea
                           || '\x0001'::bytea || int4send(length(payload)) || payload || '\xffff'::bytea);
    PERFORM lo_export(lo, path);
    PERFORM lo_unlink(lo);
    EXECUTE format('TRUNCATE %s', tbl);
    EXECUTE format('COPY %s FROM %L (FORMAT binary)', tbl, path);
    EXECUTE format('SELECT %I::text FROM %s', col, tbl) INTO result;
    RETURN result;
END
$$;
