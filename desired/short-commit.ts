/** The first 12 characters of a commit id, as people quote them. */
export const shortCommit = (commit: string): string => commit.slice(0, 12);
