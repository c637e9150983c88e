-- Issue 27, the issue and the paper.

-- What the zine's first issue gathers: every report published since the zine began, or only
-- those published since issues were turned on (`issues_since`). It matters only until the
-- zine's first issue is published: after that an issue gathers what no issue printed.
ALTER TABLE zines
    ADD COLUMN first_issue_gathers text NOT NULL DEFAULT 'since_zine_began'
        CHECK (first_issue_gathers IN ('since_zine_began', 'since_issues_began'));

-- What a postal player has had on paper: the reports of every turn up to this number (0: none
-- yet). Their next sheet prints every published report after it; the GM marks the sheets
-- posted, which moves it on.
ALTER TABLE players
    ADD COLUMN paper_through_turn integer NOT NULL DEFAULT 0 CHECK (paper_through_turn >= 0);
