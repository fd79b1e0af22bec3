import { z } from 'zod';

// A missing field reads "required" rather than zod's "expected string, received undefined". Imported by every
// module that parses outside input (requests, settings, files), so the wording is the same everywhere.
z.config({
  customError: (issue) =>
    issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union')
      ? 'required'
      : undefined,
});
