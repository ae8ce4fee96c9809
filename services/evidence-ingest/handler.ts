// TEMPORARY skeleton: replaced by the evidence-ingest implementation in this change series.
export const handler = async (): Promise<void> => {
  throw new Error('not implemented yet');
};
