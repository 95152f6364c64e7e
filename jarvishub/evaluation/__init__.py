"""Process evaluation of agents: scenarios, metrics, results, the report and the dataset export."""
