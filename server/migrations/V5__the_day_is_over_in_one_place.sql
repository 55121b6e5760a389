-- The daily desert's rule of secrecy, in one place: a day's seed is shown, and a game of
-- it taken, once the day is over in UTC, by the database's clock, which every server
-- process shares. Every query that asks whether a day is over asks these.
CREATE FUNCTION utc_today() RETURNS date LANGUAGE sql STABLE
    AS $$ SELECT (now() AT TIME ZONE 'UTC')::date $$;
CREATE FUNCTION day_is_over(day date) RETURNS boolean LANGUAGE sql STABLE
    AS $$ SELECT day < utc_today() $$;
