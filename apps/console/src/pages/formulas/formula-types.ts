export interface ContractElement {
  name: string;
  description?: string;
  type: 'string' | 'boolean' | 'number';
  optional?: boolean;
}

export interface Formula {
  id: string;
  name: string;
  description?: string | null;
  type: 'official' | 'private';
  status: string;
  icon?: string | null;
  code: string;
  configuration: ContractElement[];
  request_parameters: ContractElement[];
  created_by?: string;
  created_at?: string;
  modified_by?: string;
  modified_at?: string;
}

export const STARTER_CODE = `module.exports = async function (req) {
  const { args, configuration } = req;
  return {
    raw: { received: Object.keys(args) },
  };
};
`;
